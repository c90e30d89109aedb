#!/bin/sh
# CARP as Squid 5.7: three cuttle parents behind one cuttle child with
# `carp`; 1,000 URLs spread within 20% of even over the three, each URL
# always to the same parent (every URL asked twice), the child's access.log
# says CARP. Then Debian's Squid 5.7, as a child with the same cache_peer
# lines, sends each of 200 of those URLs to the parent cuttle chose (the same
# hash, load factors and names), when /usr/sbin/squid is installed.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
cuttle_setup
origin_start
PEERS=""
for p in p1 p2 p3; do
    peer_start "$p" "cache deny all" "strip_query_terms off"
    PEERS="$PEERS
cache_peer 127.0.0.1 parent $PEER_PORT 0 no-query carp name=$p"
done
# shellcheck disable=SC2086 # one cache_peer line per parent
fwd_conf "cache deny all" "never_direct allow all" "http_access allow localhost" "http_access deny all"
echo "$PEERS" >> "$T/squid.conf"
cuttle_start

# ask URL... through the proxy at port $1, twice each, on kept-alive connections
ask() {
    python3 - "$@" <<'PY' || fail "the requests through the child failed"
import http.client, sys
port, origin, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
for round in range(2):
    for i in range(first, last):
        c.request("GET", "http://127.0.0.1:%s/carp/%d" % (origin, i))
        r = c.getresponse()
        r.read()
        if r.status != 200:
            sys.exit("status %d for /carp/%d" % (r.status, i))
PY
}
ask "$PORT" "$OPORT" 0 1000

# which parent each URL went to, from the parents' logs
python3 - "$T" "$OPORT" 1000 <<'PY' || fail "CARP spread"
import re, sys
t, origin, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen = {}
count = {}
for p in ("p1", "p2", "p3"):
    count[p] = 0
    for line in open("%s/%s/access.log" % (t, p)):
        m = re.search(r" GET http://127\.0\.0\.1:%s/carp/(\d+) " % origin, line)
        if m:
            seen.setdefault(int(m.group(1)), []).append(p)
            count[p] += 1
bad = [u for u in range(n) if len(seen.get(u, [])) != 2 or seen[u][0] != seen[u][1]]
if bad:
    sys.exit("URLs not sent twice to one parent: %s" % [(u, seen.get(u)) for u in bad[:10]])
even = 2 * n / 3
print("requests per parent (2 x 1000 URLs):", count)
# The URLs carry the origin's random port, so the spread is a sample. Squid's
# hash, computed in Python over these URLs for origin ports 30000-31999, put
# the furthest parent 16% off even at worst, more than 10% off for 4.7% of
# the ports (this test failed in CI at 10%) and more than 15% off for 0.1%.
# 20% holds for every port; a hash that sends all to one parent or two fails.
for p, c in count.items():
    if abs(c - even) > 0.2 * even:
        sys.exit("%s got %d requests, more than 20%% off %d" % (p, c, even))
with open("%s/cuttle-choice" % t, "w") as f:
    for u in range(n):
        f.write("%d %s\n" % (u, seen[u][0]))
PY
pass "1,000 URLs spread within 20% of even over three parents, each URL always to one"
wait_until 5 access_log_has " GET http://127\.0\.0\.1:$OPORT/carp/999 - CARP/127\.0\.0\.1 " ||
    fail "the child did not log CARP/127.0.0.1"
pass "the child logs CARP/127.0.0.1"

if [ ! -x "$SQUID" ]; then
    echo "no $SQUID: the comparison with Squid 5.7 is skipped"
    exit 0
fi
for p in p1 p2 p3; do
    wc -l < "$T/$p/access.log" > "$T/$p/before"
done
squid_start sq "cache deny all" "never_direct allow all" "$PEERS"
ask "$PEER_PORT" "$OPORT" 0 200
python3 - "$T" "$OPORT" 200 <<'PY' || fail "Squid 5.7 and cuttle chose differently"
import re, sys
t, origin, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
cuttle = dict(line.split() for line in open("%s/cuttle-choice" % t))
squid = {}
for p in ("p1", "p2", "p3"):
    skip = int(open("%s/%s/before" % (t, p)).read())
    for line in open("%s/%s/access.log" % (t, p)).readlines()[skip:]:
        m = re.search(r" GET http://127\.0\.0\.1:%s/carp/(\d+) " % origin, line)
        if m:
            squid[m.group(1)] = p
differ = [(u, cuttle[u], squid.get(u)) for u in map(str, range(n)) if squid.get(u) != cuttle[u]]
if differ:
    sys.exit("%d of %d URLs went elsewhere from Squid: %s" % (len(differ), n, differ[:10]))
PY
pass "Squid 5.7 with the same parents sends each of 200 URLs where cuttle does"
cuttle_stop
