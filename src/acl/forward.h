/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of the acl part.

#pragma once

namespace Acl {
class Node;
class GroupNode;
class Registry;
class AccessList;
struct Checklist;
/// Where ssl::server_name takes its names from (its options; Checklist::tlsServerNames()).
enum class ServerNameSource { Default, ClientRequested, ServerProvided };
class Fields;
class ExternalNode;
class ExternalType;
class LookupAnswers;
class UserAddresses;
struct Lookup;
struct LookupResult;
} // namespace Acl
