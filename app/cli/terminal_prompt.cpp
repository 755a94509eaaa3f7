#include "terminal_prompt.hpp"

#include <cstdio>
#include <termios.h>
#include <unistd.h>

namespace shardwise::cli {

std::optional<std::string> askPassphraseOnTerminal(const std::filesystem::path& keyFile)
{
    FILE* tty = std::fopen("/dev/tty", "r+");
    if (!tty)
        return std::nullopt;
    std::fprintf(tty, "passphrase for %s: ", keyFile.c_str());
    std::fflush(tty);
    termios saved {};
    const int fd = ::fileno(tty);
    const bool haveTermios = ::tcgetattr(fd, &saved) == 0;
    if (haveTermios) {
        termios quiet = saved;
        quiet.c_lflag &= static_cast<tcflag_t>(~ECHO);
        ::tcsetattr(fd, TCSAFLUSH, &quiet);
    }
    std::string answer;
    int c;
    while ((c = std::fgetc(tty)) != EOF && c != '\n')
        answer += static_cast<char>(c);
    if (haveTermios)
        ::tcsetattr(fd, TCSAFLUSH, &saved);
    std::fputc('\n', tty);
    std::fclose(tty);
    return answer;
}

} // namespace shardwise::cli
