# Helpers shared by the disk cache system tests (test-suite/disk/*.sh).
# Source it after lib.sh and test-suite/cache/helpers.sh:
#
#     disk_setup                 # the origin, $DIRLINE's directories made with -z
#     cache_start "$DIRLINE" ... # the proxy (test-suite/cache/helpers.sh)
#     wait_until 10 is_rebuilt   # its index rebuilt: it stores from now on

# the cache_dir line of the test
DIRLINE="cache_dir ufs $T/cache 100 4 4"

# disk_setup : starts the origin and makes $DIRLINE's directories (-z)
disk_setup() {
    origin_start
    cuttle_conf "$DIRLINE"
    "$CUTTLE" -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-z: $(cat "$T/out")"
}
# is_rebuilt : cache.log says the cache_dir's index was rebuilt
is_rebuilt() { grep -q "cache_dir $T/cache: rebuilt its index" "$T/cache.log"; }
# stored_files : the number of complete store files
stored_files() { find "$T/cache" -type f ! -name '*.tmp' | wc -l | tr -d ' '; }
# has_files N : at least N complete store files
has_files() { [ "$(stored_files)" -ge "$1" ]; }
# no_temp_file : no store file is being written
no_temp_file() { [ -z "$(find "$T/cache" -name '*.tmp')" ]; }
