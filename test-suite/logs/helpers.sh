# Helpers of the access_log system tests (test-suite/logs/*.sh). Source it
# after lib.sh and forwarding/helpers.sh.

# receiver_start tcp|udp FILE : a log receiver writing to FILE; sets RECEIVER_PORT
receiver_start() {
    bg_start "receiver-$1" python3 "$top_srcdir/test-suite/logs/receiver.py" "$1" "$2" "$(scaled 60)"
    RECEIVER_PORT=$BG_PORT
}

# lines FILE : the number of lines of FILE (0 when it is missing)
lines() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }

# has_lines FILE N : whether FILE has at least N lines
has_lines() { [ "$(lines "$1")" -ge "$2" ]; }

# logs_setup : cuttle_setup and the test origin at $OURL
logs_setup() {
    cuttle_setup
    origin_start
    OURL=http://127.0.0.1:$OPORT
}
