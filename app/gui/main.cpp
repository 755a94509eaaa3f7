#include "shell/startup.hpp"

int main(int argc, char** argv)
{
    return shardwise::gui::runShardwise(argc, argv);
}
