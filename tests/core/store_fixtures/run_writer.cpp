// A process that records runs into a store, for the tests that kill writers or run several at once.
//   store_run_writer loop  DB SEED      records random runs until killed
//   store_run_writer count DB SEED N    records N random runs, then exits 0
// "recording" on stdout says the store is open and the first run is about to start.
// Any error goes to stderr with exit code 1, so a test sees every SQLITE_BUSY a writer met.
#include "synthetic_run.hpp"

#include <cstdlib>
#include <iostream>
#include <string>

int main(int argc, char** argv)
{
    using namespace shardwise::store;
    const std::string mode = argc > 1 ? argv[1] : "";
    if (argc < 4 || (mode != "loop" && mode != "count") || (mode == "count" && argc < 5)) {
        std::cerr << "usage: store_run_writer loop DB SEED | count DB SEED N\n";
        return 2;
    }
    try {
        std::mt19937 rng(static_cast<unsigned>(std::stoul(argv[3])));
        Database db = Database::open(argv[2]);
        std::cout << "recording" << std::endl;
        const long limit = mode == "count" ? std::stol(argv[4]) : -1;
        for (long i = 0; limit < 0 || i < limit; ++i)
            fixtures::recordRun(db, fixtures::randomRun(rng));
    } catch (const std::exception& e) {
        std::cerr << "store_run_writer: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
