#include "runs_import_published.hpp"

#include "command.hpp"

#include "shardwise/published/examples.hpp"
#include "shardwise/published/published_import.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/store/location.hpp"

#include <algorithm>

namespace shardwise::cli {

int importPublishedRuns(const std::optional<std::string>& dir, const std::map<std::string, std::string>& flags,
                        std::ostream& out, std::ostream& err)
{
    std::vector<published::Source> sources;
    const std::filesystem::path folder = dir ? std::filesystem::path(*dir) : published::defaultDirectory();
    try {
        sources = published::loadDirectory(folder);
    } catch (const published::PublishedError& e) {
        err << "shardwise-cli runs import-published: " << e.what() << "; nothing was imported\n";
        return kExitUsage;
    }
    const auto db = flags.find("--db");
    store::Database database = store::Database::open(store::resolveDatabasePath(db == flags.end() ? "" : db->second));
    published::PublishedImportOptions options;
    options.replace = flags.count("--replace") > 0;
    try {
        const auto result = published::importPublished(database, sources, PresetCatalog::builtin(), options);
        out << "imported " << countOf(result.inserted.size(), "published run") << " from "
            << countOf(sources.size(), "source") << " in " << folder.string();
        if (!result.inserted.empty())
            out << " as IDs " << *std::min_element(result.inserted.begin(), result.inserted.end()) << "-"
                << *std::max_element(result.inserted.begin(), result.inserted.end());
        out << "\n";
        if (!result.replaced.empty())
            out << "replaced " << countOf(result.replaced.size(), "run") << " stored by an earlier import\n";
        if (!result.alreadyStored.empty())
            out << countOf(result.alreadyStored.size(), "cell")
                << " already stored, kept (--replace stores them again)\n";
        for (const std::string& s : result.skipped)
            out << "not a run: " << s << "\n";
    } catch (const store::StoreError& e) {
        err << "shardwise-cli runs import-published: " << e.what() << "\n";
        return kExitFailed;
    }
    return kExitOk;
}

int importExampleRuns(const std::optional<std::string>& dir, const std::map<std::string, std::string>& flags,
                      std::ostream& out, std::ostream& err)
{
    const std::filesystem::path folder = dir ? std::filesystem::path(*dir) : published::defaultExamplesDirectory();
    std::vector<published::ExampleSet> sets;
    try {
        sets = published::loadExampleSets(folder);
    } catch (const published::ExampleError& e) {
        err << "shardwise-cli runs import-examples: " << e.what() << "; nothing was imported\n";
        return kExitUsage;
    }
    const auto db = flags.find("--db");
    store::Database database = store::Database::open(store::resolveDatabasePath(db == flags.end() ? "" : db->second));
    try {
        const auto result = published::importExamples(database, sets);
        out << "imported " << countOf(result.inserted.size(), "example run") << " from " << countOf(sets.size(), "set")
            << " in " << folder.string();
        if (!result.inserted.empty())
            out << " as IDs " << *std::min_element(result.inserted.begin(), result.inserted.end()) << "-"
                << *std::max_element(result.inserted.begin(), result.inserted.end());
        out << "\n";
        if (!result.alreadyStored.empty())
            out << countOf(result.alreadyStored.size(), "example run") << " already stored, kept\n";
    } catch (const published::ExampleError& e) {
        err << "shardwise-cli runs import-examples: " << e.what() << "\n";
        return kExitUsage;
    } catch (const store::StoreError& e) {
        err << "shardwise-cli runs import-examples: " << e.what() << "\n";
        return kExitFailed;
    }
    return kExitOk;
}

} // namespace shardwise::cli
