#include "shardwise/session/node_management.hpp"

#include "shardwise/dispatch/ssh_config.hpp"
#include "shardwise/dispatch/ssh_host_key.hpp"
#include "shardwise/session/node_facts_json.hpp"
#include "shardwise/session/prepared_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string_view>

namespace shardwise::session {

namespace {

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
        s.pop_back();
    return s;
}

// A source tree holds the runner when these exist (see dispatch::runnerBundleEntries()).
bool holdsRunnerSources(const std::filesystem::path& dir)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(dir / "runner" / "CMakeLists.txt", ec)
        && std::filesystem::is_directory(dir / "core" / "spec", ec);
}

// The value as a message shows it: control characters as \xNN, so a name cannot move the cursor or
// recolour the terminal that reads the error.
std::string shown(const std::string& value)
{
    std::string out;
    for (const char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
            static const char* const kHex = "0123456789abcdef";
            out += "\\x";
            out += kHex[byte >> 4];
            out += kHex[byte & 0xf];
        } else {
            out += c;
        }
    }
    return out;
}

bool isAsciiAlnum(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Empty where every character of `value` is a letter, a digit or one of `extra`, the first one not
// '-' (so no program could read it as an option), and it is at most `maxLength` long; else why not.
std::string charactersProblem(const std::string& value, std::string_view extra, std::size_t maxLength,
                              const std::string& allowed)
{
    const bool ok = std::all_of(value.begin(), value.end(),
                                [&](char c) { return isAsciiAlnum(c) || extra.find(c) != std::string_view::npos; });
    if (!ok)
        return "may hold only " + allowed;
    if (!value.empty() && value.front() == '-')
        return "must not begin with '-'";
    if (value.size() > maxLength)
        return "is " + std::to_string(value.size()) + " characters long, more than " + std::to_string(maxLength);
    return {};
}

// A node's name, host and user as `nodes add` and the Nodes page take them: names that print, file and
// quote as they are, a host that names one machine (no option, no user@, no spaces), a user name of
// the portable set (with '@' for a domain account).
void checkNodeFields(const store::Node& node)
{
    if (std::string why = charactersProblem(node.name, "._-", 64, "letters, digits, '.', '_' and '-'"); !why.empty())
        throw NodeError("node.name: '" + shown(node.name) + "' " + why);
    if (node.kind != store::NodeKind::Ssh)
        return;
    if (std::string why = charactersProblem(node.host, "._-:%", 253,
                                            "letters, digits, '.', '_', '-', and ':' and '%' of an IPv6 address");
        !why.empty())
        throw NodeError(
            "node.host: '" + shown(node.host) + "' " + why
            + (node.host.find('@') != std::string::npos ? " (the user name is given apart, as the node's user)" : ""));
    if (std::string why = charactersProblem(node.user, "._-@", 64, "letters, digits, '.', '_', '-' and '@'");
        !why.empty())
        throw NodeError("node.user: '" + shown(node.user) + "' " + why);
}

} // namespace

dispatch::SshEndpoint nodeEndpoint(const store::Node& node)
{
    return { node.host, node.port, node.user };
}

dispatch::SshCredentials nodeCredentials(const store::Node& node, dispatch::PassphrasePrompt askPassphrase)
{
    dispatch::SshCredentials c;
    c.method = node.auth == store::SshAuth::KeyFile ? dispatch::SshAuthMethod::KeyFile : dispatch::SshAuthMethod::Agent;
    c.keyFile = node.keyFile;
    c.askPassphrase = std::move(askPassphrase);
    return c;
}

std::unique_ptr<dispatch::SshSession> openNodeSession(const store::Node& node, const dispatch::SshOptions& options,
                                                      const std::atomic<bool>* cancel,
                                                      dispatch::PassphrasePrompt askPassphrase)
{
    if (node.kind != store::NodeKind::Ssh)
        throw NodeError("'" + node.name + "' is this machine, not an SSH node");
    return dispatch::SshSession::open(nodeEndpoint(node), nodeCredentials(node, std::move(askPassphrase)), options,
                                      cancel);
}

store::RunNodeRef runNodeRef(const store::Node& node)
{
    store::RunNodeRef ref;
    ref.name = node.name;
    if (node.id != 0)
        ref.nodeId = node.id;
    ref.ncclEnv = node.ncclEnv;
    return ref;
}

void checkNode(const store::Node& node, const dispatch::SshOptions& options)
{
    try {
        store::validateNode(node);
    } catch (const store::StoreError& e) {
        throw NodeError(e.what());
    }
    checkNodeFields(node);
    if (node.kind != store::NodeKind::Ssh)
        return;
    dispatch::SshHostConfig config;
    try {
        // The node's own user and port, as the connection passes them (`Match user`, %r, %p).
        dispatch::SshLookupHints hints;
        if (!node.user.empty())
            hints.user = node.user;
        if (node.port != 22)
            hints.port = node.port;
        config = dispatch::lookupSshConfig(options.sshConfig, node.host, hints);
    } catch (const dispatch::SshConfigError& e) {
        throw NodeError(std::string("node.host: the ssh client configuration cannot be read: ") + e.what());
    }
    if (!config.proxyCommandWhere.empty())
        throw NodeError("node.host: '" + node.host + "' goes through a ProxyCommand (" + config.proxyCommandWhere
                        + "), which Shardwise does not run; use ProxyJump");
    if (node.user.empty() && !config.user)
        throw NodeError("node.user: an SSH node needs a user name, and "
                        + (options.sshConfig.empty() ? std::string("no ssh client configuration is read")
                                                     : "the ssh client configuration " + options.sshConfig.string()
                                   + " gives no User for '" + node.host + "'"));
}

store::Node addNode(store::Database& db, const store::Node& node, const dispatch::SshOptions& options)
{
    checkNode(node, options);
    store::Node stored = node;
    try {
        stored.id = store::addNode(db, node);
    } catch (const store::StoreError& e) {
        throw NodeError(e.what());
    }
    return stored;
}

store::Node requireNode(const store::Database& db, const std::string& name)
{
    std::optional<store::Node> node = store::findNodeByName(db, name);
    if (!node)
        throw NodeError("no node named '" + name + "' in the store " + db.path().string());
    return *node;
}

void removeNode(store::Database& db, const std::string& name)
{
    const store::Node node = requireNode(db, name);
    if (!store::removeNode(db, node.id))
        throw NodeError("no node named '" + name + "' in the store " + db.path().string());
}

std::pair<std::string, std::string> parseEnvAssignment(const std::string& text)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw NodeError("'" + text + "' is not NAME=VALUE");
    return { text.substr(0, eq), text.substr(eq + 1) };
}

void setNodeNcclEnv(store::Database& db, std::int64_t nodeId, const std::map<std::string, std::string>& env)
{
    try {
        store::setNodeNcclEnv(db, nodeId, env);
    } catch (const store::StoreError& e) {
        throw NodeError(e.what());
    }
}

ConnectionTest testNodeConnection(const store::Node& node, const dispatch::SshOptions& options,
                                  const std::atomic<bool>* cancel, dispatch::PassphrasePrompt askPassphrase)
{
    const auto started = std::chrono::steady_clock::now();
    auto session = openNodeSession(node, options, cancel, std::move(askPassphrase));
    ConnectionTest test;
    test.connectMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    test.user = session->endpoint().user;
    test.host = session->endpoint().host;
    test.port = session->endpoint().port;
    test.hostKey = session->hostKey();
    dispatch::CommandIo io;
    io.timeout = std::chrono::seconds(20);
    const dispatch::CommandOutcome uname = session->run(std::vector<std::string> { "uname", "-srm" }, io, cancel);
    test.commandSucceeded = uname.succeeded();
    test.system = uname.succeeded() ? trimmed(uname.stdoutData) : uname.describe();
    return test;
}

dispatch::NodeFacts discoverNodeFacts(const store::Node& node, const dispatch::SshOptions& options,
                                      const std::atomic<bool>* cancel, dispatch::PassphrasePrompt askPassphrase)
{
    if (node.kind == store::NodeKind::Local)
        return dispatch::discoverLocalNode();
    auto session = openNodeSession(node, options, cancel, std::move(askPassphrase));
    return dispatch::discoverNode(*session, cancel);
}

store::Node recordNodeFacts(store::Database& db, std::int64_t nodeId, const dispatch::NodeFacts& facts)
{
    const store::Node before = [&] {
        std::optional<store::Node> n = store::findNode(db, nodeId);
        if (!n)
            throw NodeError("no node with id " + std::to_string(nodeId) + " in the store " + db.path().string());
        return *n;
    }();
    nlohmann::json stored = nodeFactsToJson(facts);
    // Discovery finds what is installed; the runner a preparation built stays valid.
    if (before.facts.is_object() && before.facts.contains("prepared_runner"))
        stored["prepared_runner"] = before.facts.at("prepared_runner");
    store::setNodeFacts(db, nodeId, stored);
    store::Node after = before;
    after.facts = stored;
    return after;
}

dispatch::PreparedRunner prepareStoredNode(const store::Node& node, const dispatch::RemoteBundle& sources,
                                           const dispatch::SshOptions& options,
                                           const dispatch::PreparationOptions& preparation,
                                           const dispatch::PreparationCallback& onProgress,
                                           const std::atomic<bool>* cancel, dispatch::PassphrasePrompt askPassphrase)
{
    if (node.kind != store::NodeKind::Ssh)
        throw NodeError(
            "'" + node.name
            + "' is this machine, which runs the runner installed beside Shardwise; only SSH nodes are prepared");
    auto session = openNodeSession(node, options, cancel, std::move(askPassphrase));
    return dispatch::prepareNode(*session, sources, preparation, onProgress, cancel);
}

store::Node recordPreparedRunner(store::Database& db, std::int64_t nodeId, const dispatch::PreparedRunner& runner)
{
    std::optional<store::Node> node = store::findNode(db, nodeId);
    if (!node)
        throw NodeError("no node with id " + std::to_string(nodeId) + " in the store " + db.path().string());
    nlohmann::json facts = nodeFactsToJson(runner.facts);
    setPreparedRunner(facts, runner, store::currentUnixTime());
    store::setNodeFacts(db, nodeId, facts);
    node->facts = facts;
    return *node;
}

void trustNodeHostKey(store::Database& db, const store::Node& node, const dispatch::HostKey& key,
                      const std::filesystem::path& appKnownHosts)
{
    // The key names the host that presented it (the resolved name of an ssh_config alias, or a jump
    // host); known_hosts must record that name, not the alias.
    if (!key.host.empty() && key.port > 0)
        dispatch::acceptHostKey(key, appKnownHosts);
    else
        dispatch::acceptHostKey(node.host, node.port, key, appKnownHosts);
    // The node's row remembers its own key; a jump host's key is only written to known_hosts.
    if (!key.jumpHost && node.id != 0)
        store::acceptHostKey(db, node.id, key.fingerprint);
}

std::filesystem::path findRunnerSources(const std::filesystem::path& programDir)
{
    if (const char* env = std::getenv("SHARDWISE_RUNNER_SOURCES"); env && *env) {
        if (!holdsRunnerSources(env))
            throw NodeError(std::string("SHARDWISE_RUNNER_SOURCES: ") + env
                            + " does not hold the runner's sources (runner/CMakeLists.txt, core/spec)");
        return env;
    }
    // The Debian package installs them beside the binaries: <prefix>/share/shardwise/runner-src.
    const std::filesystem::path installed
        = (programDir / ".." / "share" / "shardwise" / "runner-src").lexically_normal();
    if (holdsRunnerSources(installed))
        return installed;
    // A build tree sits inside (or beside) its sources: look up from the program's folder.
    std::filesystem::path dir = programDir.lexically_normal();
    for (int up = 0; up < 5 && !dir.empty(); ++up) {
        if (holdsRunnerSources(dir))
            return dir;
        if (dir == dir.parent_path())
            break;
        dir = dir.parent_path();
    }
    throw NodeError("the runner's sources were not found; set SHARDWISE_RUNNER_SOURCES to the Shardwise source folder");
}

} // namespace shardwise::session
