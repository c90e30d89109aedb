/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Forward declarations of src/base.

#pragma once

class RefCountable;
template <class T>
class RefCount;
class TextException;
