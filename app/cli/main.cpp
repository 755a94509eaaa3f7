#include "command.hpp"

#include "shardwise/spec/suggest.hpp"

#include <algorithm>
#include <iostream>

namespace shardwise::cli {

namespace {
std::vector<Command>& registry()
{
    static std::vector<Command> r;
    return r;
}
} // namespace

CommandRegistration::CommandRegistration(std::string name, std::string summary, CommandFunction run,
                                         CommandSpecsFunction specs)
{
    registry().push_back({ std::move(name), std::move(summary), std::move(run), specs });
}

const std::vector<Command>& commands()
{
    return registry();
}

} // namespace shardwise::cli

namespace {

void printUsage(std::ostream& out)
{
    using namespace shardwise::cli;
    std::vector<Command> sorted = commands();
    std::sort(sorted.begin(), sorted.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
    out << "usage: shardwise-cli <command> [options]\n\ncommands:\n";
    for (const auto& c : sorted)
        out << "  " << c.name << std::string(c.name.size() < 10 ? 10 - c.name.size() : 1, ' ') << c.summary << "\n";
    out << "\n`shardwise-cli <command> --help` describes a command's options; `shardwise-cli --version` prints the "
           "version.\n";
}

} // namespace

int main(int argc, char** argv)
{
    using namespace shardwise::cli;
    if (argc < 2) {
        printUsage(std::cerr);
        return kExitUsage;
    }
    const std::string name = argv[1];
    if (name == "help" || name == "--help" || name == "-h") {
        printUsage(std::cout);
        return kExitOk;
    }
    if (name == "--version") {
        std::cout << "shardwise-cli " << SHARDWISE_VERSION << "\n";
        return kExitOk;
    }
    const std::vector<std::string> args(argv + 2, argv + argc);
    for (const auto& c : commands()) {
        if (c.name == name) {
            try {
                return c.run(args, std::cout, std::cerr);
            } catch (const std::exception& e) {
                std::cerr << "shardwise-cli " << name << ": " << e.what() << "\n";
                return kExitFailed;
            }
        }
    }
    std::vector<std::string> names;
    for (const auto& c : commands())
        names.push_back(c.name);
    std::cerr << "shardwise-cli: unknown command '" << name << "'" << shardwise::didYouMean(name, names) << "\n\n";
    printUsage(std::cerr);
    return kExitUsage;
}
