/*
 * cuttle: a caching forward HTTP proxy that reads squid.conf.
 * Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
 */

#include "cuttle.h"
#include "disk/Rebuild.h"
#include "comm/Descriptor.h"
#include "disk/Format.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

/// the file number of a store file's name (8 upper-case hex digits), or -1
int64_t FileNumberOf(const char* name)
{
    if (std::strlen(name) != 8)
        return -1;
    for (const char* c = name; *c; ++c) {
        if (!std::isxdigit(static_cast<unsigned char>(*c)) || std::islower(static_cast<unsigned char>(*c)))
            return -1;
    }
    return std::strtoll(name, nullptr, 16);
}

} // namespace

void Disk::ScanJob::run() noexcept
{
    for (unsigned b = 0; b < layout_.l2(); ++b) {
        const auto dirPath = layout_.directoryOf(l1_, b);
        DIR* dir = ::opendir(dirPath.c_str());
        if (!dir)
            continue;
        while (const dirent* e = ::readdir(dir)) {
            const std::string name = e->d_name;
            if (name == "." || name == "..")
                continue;
            const auto path = dirPath + "/" + name;
            if (name.size() == 12 && name.compare(8, 4, ".tmp") == 0 &&
                FileNumberOf(name.substr(0, 8).c_str()) >= 0) {
                ::unlink(path.c_str()); // a write that never completed
                ++result_.removed;
                continue;
            }
            const auto number = FileNumberOf(name.c_str());
            if (number >= 0)
                scanFile(path, static_cast<uint32_t>(number));
        }
        ::closedir(dir);
    }
}

void Disk::ScanJob::scanFile(const std::string& path, uint32_t fileNumber) noexcept
{
    Comm::Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    char header[HeaderSize];
    struct stat st {};
    std::optional<Meta> meta;
    if (file.isOpen() && ReadAt(file.get(), header, sizeof(header), 0))
        meta = DecodeHeader(std::string_view(header, sizeof(header)));
    std::string front;
    if (meta && ::fstat(file.get(), &st) == 0 && uint64_t(st.st_size) == meta->fileSize() &&
        meta->bodyOffset() <= 1024 * 1024) {
        front.resize(meta->bodyOffset());
        if (ReadAt(file.get(), front.data(), front.size(), 0) && FrontMatches(*meta, front)) {
            result_.objects.push_back(ScannedObject{
                std::string(KeyIn(*meta, front)),
                Location{fileNumber, meta->keyLength, uint32_t(meta->slotsLength()), meta->bodyLength}});
            return;
        }
    }
    ::unlink(path.c_str()); // torn, partial or foreign: never served
    ++result_.removed;
}
