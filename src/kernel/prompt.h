// The prompt a drone receives: the mission rendered by the kernel plus the hangar protocol.
// Everything that came from the mission is quoted as data: each of its lines begins with "| ",
// so no mission text can pose as a line of the protocol. Pure: same mission, same prompt.
#pragma once

#include <string>

#include "kernel/mission.h"

namespace hangar {

std::string RenderPrompt(const Mission& m);

}  // namespace hangar
