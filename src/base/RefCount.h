/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

/// \file Intrusive reference counting: RefCountable (the counted base class)
/// and RefCount<T> (the smart pointer).
///
/// An object that derives from RefCountable carries its own count, so a
/// RefCount<T> is one pointer wide and copying it touches only the object.
/// The object is deleted when the last RefCount to it goes away.
///
/// Threading: cuttle runs one event loop per thread and a counted object
/// belongs to one loop, so the count is a plain integer. Defining
/// CUTTLE_ATOMIC_REFCOUNT (the one switch, for shared-store workers) makes it a
/// std::atomic with the usual acquire/release ordering; nothing else changes.
/// Define it for the whole build (CPPFLAGS or autoconf.h), never for one file:
/// the layout of every counted class depends on it.

#pragma once

#include <cstdint>
#include <utility>

#if defined(CUTTLE_ATOMIC_REFCOUNT)
#include <atomic>
#endif

/// Base class of every object managed by RefCount<T>. The count starts at
/// zero; RefCount<T> increments it on construction and deletes the object
/// when it drops back to zero.
class RefCountable {
public:
#if defined(CUTTLE_ATOMIC_REFCOUNT)
    /// the counter type: atomic when workers share counted objects
    using Counter = std::atomic<uint32_t>;
#else
    /// the counter type: a plain integer for a single event-loop thread
    using Counter = uint32_t;
#endif

    /// a new object has no references yet
    RefCountable() = default;
    /// a copy of an object is a new object: its count starts at zero
    RefCountable(const RefCountable&) : count_(0) {}
    /// assigning an object's value does not change who refers to it
    RefCountable& operator=(const RefCountable&)
    {
        return *this;
    }
    /// virtual so that RefCount<Base> deletes the most derived object
    virtual ~RefCountable() = default;

    /// the number of RefCount pointers to this object now
    uint32_t refCount() const
    {
        return count_;
    }

    /// adds one reference (used by RefCount<T>; rarely needed elsewhere)
    void ref() const
    {
#if defined(CUTTLE_ATOMIC_REFCOUNT)
        count_.fetch_add(1, std::memory_order_relaxed);
#else
        ++count_;
#endif
    }

    /// removes one reference and returns the count left; the caller deletes
    /// the object when it returns 0
    uint32_t unref() const
    {
#if defined(CUTTLE_ATOMIC_REFCOUNT)
        return count_.fetch_sub(1, std::memory_order_acq_rel) - 1;
#else
        return --count_;
#endif
    }

private:
    mutable Counter count_ = 0; ///< references held by RefCount<T> pointers
};

/// A smart pointer to a RefCountable object: copying it shares the object,
/// moving it transfers the reference without touching the count, and the
/// last one deletes the object. Null is a valid value.
template <class T>
class RefCount {
public:
    /// the type pointed to
    using element_type = T;

    /// a null pointer
    RefCount() = default;
    /// a null pointer
    RefCount(std::nullptr_t) {}
    /// takes a reference to p (which may be null); p may already be counted
    explicit RefCount(T* p) : p_(p) { reference(); }
    /// shares the other pointer's object
    RefCount(const RefCount& other) : p_(other.p_) { reference(); }
    /// takes over the other pointer's reference; other becomes null
    RefCount(RefCount&& other) noexcept : p_(other.p_) { other.p_ = nullptr; }
    /// shares an object through a pointer to a derived class
    template <class U>
    RefCount(const RefCount<U>& other) : p_(other.getRaw())
    {
        reference();
    }
    /// takes over a reference through a pointer to a derived class
    template <class U>
    RefCount(RefCount<U>&& other) noexcept : p_(other.release())
    {}
    /// drops this pointer's reference
    ~RefCount() { dereference(); }

    /// shares the other pointer's object; self-assignment is safe
    RefCount& operator=(const RefCount& other)
    {
        RefCount tmp(other);
        swap(tmp);
        return *this;
    }
    /// takes over the other pointer's reference; self-move leaves *this intact.
    /// The old object is dropped last, so other may live inside it (list =
    /// std::move(list->next)).
    RefCount& operator=(RefCount&& other) noexcept
    {
        if (this != &other) {
            T* old = p_;
            p_ = other.p_;
            other.p_ = nullptr;
            Drop(old);
        }
        return *this;
    }
    /// becomes null
    RefCount& operator=(std::nullptr_t)
    {
        reset();
        return *this;
    }

    /// the object, or nullptr; the pointer stays owned by the RefCount
    T* getRaw() const { return p_; }
    /// the object; must not be null
    T* operator->() const { return p_; }
    /// the object; must not be null
    T& operator*() const { return *p_; }
    /// whether this points to an object
    explicit operator bool() const { return p_ != nullptr; }

    /// becomes null, then drops the reference (so *this may live inside the
    /// object it pointed to)
    void reset() { Drop(release()); }
    /// exchanges the objects of two pointers without touching the counts
    void swap(RefCount& other) noexcept { std::swap(p_, other.p_); }
    /// gives up the reference without dropping it: the caller now owns one
    /// count on the returned object (used by converting moves)
    T* release() noexcept
    {
        T* p = p_;
        p_ = nullptr;
        return p;
    }

    /// pointer identity
    template <class U>
    bool operator==(const RefCount<U>& other) const
    {
        return p_ == other.getRaw();
    }
    /// whether this is null
    bool operator==(std::nullptr_t) const { return p_ == nullptr; }

private:
    void reference() const
    {
        if (p_)
            p_->ref();
    }
    void dereference() { Drop(p_); }
    /// drops one reference to p (which may be null)
    static void Drop(T* p)
    {
        if (p && p->unref() == 0)
            delete p;
    }

    T* p_ = nullptr; ///< the object, counted once by this pointer
};

/// Creates a T with the given constructor arguments and returns the first
/// reference to it.
template <class T, class... Args>
RefCount<T> MakeRef(Args&&... args)
{
    return RefCount<T>(new T(std::forward<Args>(args)...));
}
