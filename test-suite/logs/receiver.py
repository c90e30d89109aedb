# A log receiver for the access_log tcp and udp modules: listens on
# 127.0.0.1:0, prints "listening on 127.0.0.1:PORT", and appends what it
# receives to FILE. Ends by itself after LIMIT seconds.
import socket, sys, threading, time

proto, path, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
kind = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
s = socket.socket(socket.AF_INET, kind)
s.bind(("127.0.0.1", 0))
if proto == "tcp":
    s.listen(4)
print("listening on 127.0.0.1:%d" % s.getsockname()[1], flush=True)
out = open(path, "ab", buffering=0)


def drain(conn):
    while True:
        data = conn.recv(65536)
        if not data:
            return
        out.write(data)


def serve():
    while True:
        if proto == "tcp":
            conn, _ = s.accept()
            threading.Thread(target=drain, args=(conn,), daemon=True).start()
        else:
            out.write(s.recv(65536))


threading.Thread(target=serve, daemon=True).start()
time.sleep(limit)
