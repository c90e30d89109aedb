#!/usr/bin/env python3
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
#
# A loopback port whose connects get no answer: a listening socket with a
# backlog of 0 that never accepts, its queue filled by connects of its own,
# so that Linux drops the SYNs of every later connect (they time out, as to
# an unreachable host). Prints "listening on 127.0.0.1:PORT", then holds the
# port for at most 120 s.
import socket
import time

server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(0)
port = server.getsockname()[1]
fillers = []
for _ in range(3):
    c = socket.socket()
    c.setblocking(False)
    try:
        c.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    fillers.append(c)
time.sleep(0.2)
print("listening on 127.0.0.1:%d" % port, flush=True)
time.sleep(120)
