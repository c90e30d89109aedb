#!/bin/sh
# Squid's other command-line options, as Debian's squid.service and scripts use
# them: --foreground with sd_notify (Type=notify), -n NAME as ${service_name},
# -a PORT, -X, -s / -l FACILITY, -u, -z, and the accepted no-ops -C -F -R -S -Y.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup

# -z without a cache_dir: nothing to create, exit 0 (Debian's ExecStartPre runs `squid --foreground -z`)
cuttle_conf "http_access allow localhost"
"$CUTTLE" --foreground -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "--foreground -z exited non-zero: $(cat "$T/out")"
pass "-z"

# bad option values are usage errors
for args in "-l nosuchfacility" "-a 70000" "-a x" "-u -1" "--nosuchoption" "-n bad/name"; do
    # shellcheck disable=SC2086
    "$CUTTLE" $args > "$T/out" 2>&1
    rc=$?
    [ $rc = 2 ] || fail "cuttle $args: exit $rc, wanted 2"
    grep -q 'Usage:' "$T/out" || fail "cuttle $args: no usage"
done
pass "bad option values exit 2"

# -n NAME is ${service_name} in squid.conf; -k parse sees it too
cuttle_conf "http_access allow localhost" 'visible_hostname ${service_name}.test' 'if ${process_number} = 1' \
    "via on" "else" "via off" "endif"
"$CUTTLE" -n alpha -k parse -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-n alpha -k parse: $(cat "$T/out")"
pass "-n with -k parse"

# --foreground -sYC under a fake systemd: READY=1 once the port is bound,
# RELOADING/READY around a reconfigure, STOPPING=1 on shutdown; -a overrides the port
python3 - "$CUTTLE" "$T" "$(scaled 10)" <<'PY' || fail "sd_notify / -n / -a run failed"
import os, re, socket, subprocess, sys, time, urllib.request

cuttle, tmp, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(os.path.join(tmp, "notify"))
# anyone may write to it, as to systemd's own: cuttle notifies after leaving root
os.chmod(os.path.join(tmp, "notify"), 0o777)
notify.settimeout(limit)

# pick a free port for -a (bind 0, close, reuse: loopback only)
probe = socket.socket(); probe.bind(("127.0.0.1", 0)); port = probe.getsockname()[1]; probe.close()

env = dict(os.environ, NOTIFY_SOCKET=os.path.join(tmp, "notify"))
proc = subprocess.Popen([cuttle, "--foreground", "-sYC", "-n", "alpha", "-a", str(port),
                         "-f", os.path.join(tmp, "squid.conf")], env=env,
                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "stderr"), "w"))
try:
    ready = notify.recv(512).decode()
    assert ready.startswith("READY=1"), ready
    assert "MAINPID=%d" % proc.pid in ready, ready
    # -a PORT replaced http_port's 0; the error page names the -n host
    req = urllib.request.Request("ftp://example.test/", method="GET")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": "http://127.0.0.1:%d" % port, "ftp": "http://127.0.0.1:%d" % port}))
    try:
        opener.open(req, timeout=limit)
        raise AssertionError("expected an HTTP error")
    except urllib.error.HTTPError as e:
        assert e.code == 501, e.code
        body = e.read().decode()
        assert "alpha.test" in body, "visible_hostname ${service_name}.test did not use -n alpha"
    proc.send_signal(1)  # SIGHUP
    assert notify.recv(512).decode() == "RELOADING=1"
    assert notify.recv(512).decode().startswith("READY=1")
    proc.terminate()
    assert notify.recv(512).decode() == "STOPPING=1"
    assert proc.wait(timeout=limit) == 0
finally:
    if proc.poll() is None:
        proc.kill()
PY
pass "--foreground -sYC: sd_notify READY/RELOADING/STOPPING, -a PORT, -n NAME"

# -X: full debugging reaches cache.log (level 2+ lines carry milliseconds)
cuttle_start -X
curl -s -o /dev/null -x "http://127.0.0.1:$PORT" ftp://example.test/ || true
cuttle_stop
grep -Eq "^[0-9/]+ [0-9:]+\.[0-9]{3}$(kid_label_re)\| " "$T/cache.log" || fail "-X wrote no debug-level lines"
pass "-X"

# -u PORT: the ICP socket on that port, whatever icp_port says
UPORT=$(python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
cuttle_start -u "$UPORT"
wait_until 5 grep -q "Accepting ICP messages on .*:$UPORT\$" "$T/cache.log" ||
    fail "-u $UPORT: no ICP socket: $(cat "$T/cache.log")"
cuttle_stop
pass "-u"
