#!/bin/sh
# -k reconfigure while a large download (256 MB at 50 MB/s, not the 2 GiB of
# the issue, to keep CI fast) and 100 small clients (10 at a time, 10 requests
# each) run: none of them fails, the download's bytes are the origin's.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/faults/helpers.sh"
cuttle_setup
origin_start
# idle origin connections of the 10 parallel clients go before the leak check
faults_conf "server_idle_pconn_timeout 1 second"
cuttle_start
faults_baseline "$OURL/x?s=1000&first=1"

expected=$("$ORIGIN" --print-body 256m | sha256sum | cut -d' ' -f1)
{ curl -s --max-time "$(scaled 60)" --limit-rate 50M -x "127.0.0.1:$PORT" "$OURL/big?s=256m&cc=no-store" \
    2> /dev/null; echo $? > "$T/big.rc"; } | sha256sum | cut -d' ' -f1 > "$T/big.sum" &
big=$!
pids=""
for c in $(seq 1 10); do
    (
        for i in $(seq 1 10); do
            code=$(curl -s -o /dev/null --max-time "$(scaled 20)" -x "127.0.0.1:$PORT" -w '%{http_code}' \
                "$OURL/small?s=10k&c=$c&i=$i&t=50ms")
            [ "$code" = 200 ] || echo "client $c request $i: $code" >> "$T/small.failed"
        done
    ) &
    pids="$pids $!"
done
mark
sleep 1
"$CUTTLE" -k reconfigure -f "$T/squid.conf" || bad "-k reconfigure failed"
sleep 1
"$CUTTLE" -k reconfigure -f "$T/squid.conf" || bad "the second -k reconfigure failed"
# shellcheck disable=SC2086 # pids
wait $pids
wait "$big"
[ ! -s "$T/small.failed" ] || bad "small clients failed: $(head -n 5 "$T/small.failed")"
[ "$(cat "$T/big.rc")" = 0 ] && [ "$(cat "$T/big.sum")" = "$expected" ] ||
    bad "the 256 MB download failed: curl exit $(cat "$T/big.rc")"
n=$(grep -c 'Reconfiguring\|reconfigur' "$T/cache.log")
[ "$n" -ge 2 ] || bad "cache.log shows $n reconfigure lines, expected two reconfigures"
baseline_check "after the reconfigures"
pass_if_ok "two reconfigures during a 256 MB download and 100 small clients: none failed"
faults_finish "$OURL/x?s=100k&after=reconfigure"
