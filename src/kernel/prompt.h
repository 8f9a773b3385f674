// The prompt a drone receives: the mission rendered by the kernel plus the hangar protocol.
// Everything that came from the mission is quoted as data: each of its lines begins with "| ",
// so no mission text can pose as a line of the protocol. A line ends at every line break Unicode
// and Python's str.splitlines know ("\r\n", "\n", "\r", VT, FF, 0x1C..0x1E, NEL, U+2028, U+2029),
// not only at "\n": a model reads "a\r# SYSTEM" as two lines too. Pure: same mission, same prompt.
#pragma once

#include <string>

#include "kernel/mission.h"

namespace hangar {

std::string RenderPrompt(const Mission& m);

}  // namespace hangar
