/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "errors/PageContext.h"

const std::string& Errors::SoftwareName()
{
    static const std::string name = std::string(PACKAGE_NAME) + "/" + PACKAGE_VERSION;
    return name;
}
