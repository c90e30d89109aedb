/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "tls/Probe.h"

#include <algorithm>

Tls::Probe::Probe(Comm::Loop& loop, const ClientContextRef& context, Comm::Descriptor&& fd,
                  const std::string& host, std::string sessionKey, Comm::Milliseconds timeout, Done done)
    : loop_(loop), fd_(std::move(fd)),
      tls_(std::make_unique<Connection>(context, fd_.get(), host, std::move(sessionKey),
                                        [this](int code) { // see the file comment
                                            if (std::find(errors_.begin(), errors_.end(), code) ==
                                                errors_.end())
                                                errors_.push_back(code);
                                            return true;
                                        })),
      done_(std::move(done))
{
    watch_ = loop_.watch(fd_.get(), *this);
    timer_ = loop_.schedule(
        timeout, [this] { finish(false); }, this);
}

Tls::Probe::~Probe()
{
    report_.cancel();
    timer_.cancel();
    watch_.cancel();
}

void Tls::Probe::start()
{
    step();
}

void Tls::Probe::step()
{
    if (finished_)
        return;
    switch (tls_->handshake()) {
    case Connection::Step::Blocked:
        return;
    case Connection::Step::Done:
        finish(true);
        return;
    case Connection::Step::Failed:
        finish(false);
        return;
    }
}

void Tls::Probe::finish(bool established)
{
    if (finished_)
        return;
    finished_ = true;
    timer_.cancel();
    watch_.cancel();
    if (established) {
        certificate_ = tls_->peerCertificate();
        verified_ = certificate_ && errors_.empty();
    }
    report_ = loop_.defer(
        [this] {
            auto done = std::move(done_);
            done(std::move(certificate_), std::move(errors_)); // may destroy this probe
        },
        this);
}

std::pair<Comm::Descriptor, Tls::ConnectionPtr> Tls::Probe::release()
{
    verified_ = false;
    return {std::move(fd_), std::move(tls_)};
}
