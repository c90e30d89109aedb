/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "acl/Node.h"

namespace Acl {

Node::Node(std::string name, std::string typeName) : name_(std::move(name)), typeName_(std::move(typeName)) {}

Node::~Node() = default;

bool Node::acceptsOption(const std::string&) const
{
    return false;
}

void Node::markUnsupported(std::string reason)
{
    if (unsupported_.empty())
        unsupported_ = std::move(reason);
}

UnsupportedNode::UnsupportedNode(std::string name, std::string typeName)
    : Node(std::move(name), std::move(typeName))
{
    markUnsupported("is of type " + this->typeName() + ", which cuttle does not implement");
}

} // namespace Acl
