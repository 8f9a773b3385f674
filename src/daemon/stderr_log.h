// hangard's lines on stderr (man hangard.8, LOGGING). Under systemd, when stderr is the journal
// ($JOURNAL_STREAM names its device and inode), each line starts with its sd-daemon priority
// prefix (<3> an error, <4> a warning, <6> information) and carries no time of its own, so that
// `journalctl -p err` finds the errors; elsewhere each line starts with its UTC time.
#pragma once

#include <string>

namespace hangar {

enum class Priority { kErr = 3, kWarning = 4, kInfo = 6 };

// Whether stderr is the journal's stream: $JOURNAL_STREAM is "DEV:INODE" of fd 2.
bool StderrIsJournal();

// The line: "<N>hangard: TEXT\n" for the journal; else "TIME hangard: TEXT\n" ("hangard: TEXT\n"
// when TIME is empty).
std::string StderrLine(bool journal, Priority p, const std::string& time, const std::string& text);

// StderrLine written to fd 2 in one write(2).
void WriteStderr(bool journal, Priority p, const std::string& time, const std::string& text);

}  // namespace hangar
