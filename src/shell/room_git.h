// What hangar reads of a room's own .git: files read beneath the room without following a link,
// never through git, whose configuration, hooks and index there are the drone's.
#pragma once

#include <optional>
#include <string>

namespace hangar {

// Up to MAX bytes of the regular file REL beneath the directory DIR, no link followed in any
// component; nullopt when it cannot be read so.
std::optional<std::string> ReadBeneath(int dir, const std::string& rel, size_t max);

// The commit the room's HEAD names (ROOM: an open room directory): HEAD's id, or the ref it names,
// as a loose file or in packed-refs, followed up to 5 deep; "" with *why set when it names none
// hangar can read.
std::string RoomHead(int room, std::string* why);

}  // namespace hangar
