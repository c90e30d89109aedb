/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file follow_x_forwarded_for: the indirect client of a request that
/// trusted proxies forwarded (Squid 5.7's clientFollowXForwardedForCheck()).

#pragma once

#include "acl/Address.h"

#include <functional>
#include <string_view>

namespace Client {

/// The indirect client: starting from the `direct` one, while `trusts`
/// allows the current hop, the rightmost address left in `xff` (the
/// X-Forwarded-For values, joined with commas) becomes the current hop and
/// is taken off the list. Stops at a hop `trusts` refuses, at an item that
/// is not an address literal (the hop before it stays), or when the list is
/// empty. `trusts` is called at most once per item, plus once.
Acl::Address FollowXForwardedFor(const Acl::Address& direct, std::string_view xff,
                                 const std::function<bool(const Acl::Address&)>& trusts);

} // namespace Client
