# A syslog receiver for the access_log syslog module's test: binds the
# datagram socket PATH (which the test mounts on /dev/log for cuttle),
# prints "listening on PATH:0", appends each message and a newline to FILE,
# and ends after LIMIT seconds without a message.
import socket, os, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666)
s.settimeout(float(sys.argv[3]))
out = open(sys.argv[2], "ab", buffering=0)
print("listening on %s:0" % sys.argv[1], flush=True)
try:
    while True:
        out.write(s.recv(65536) + b"\n")
except OSError:
    pass
