// Remote commands on SSH channels: non-blocking reads of stdout and stderr, stdin written as the
// window allows, and an ending read from the channel's EOF, close, exit-status and exit-signal.

#include "ssh_session_state.hpp"

#include "shardwise/dispatch/shell_quote.hpp"

#include <array>

namespace shardwise::dispatch {

std::string CommandOutcome::describe() const
{
    switch (ending) {
    case CommandEnding::Exited:
        return "exit " + std::to_string(exitCode);
    case CommandEnding::Signalled:
        return "killed by SIG" + signal;
    case CommandEnding::Lost:
        return "lost: " + lostReason;
    case CommandEnding::TimedOut:
        return "timed out";
    case CommandEnding::Cancelled:
        return "cancelled";
    }
    return {};
}

namespace {

struct ChannelGuard {
    SshSession::State& st;
    LIBSSH2_CHANNEL* channel = nullptr;
    ~ChannelGuard()
    {
        if (!channel)
            return;
        // Freeing sends CHANNEL_CLOSE if still open; bounded retries so a dead peer cannot hang us.
        for (int i = 0; i < 50 && libssh2_channel_free(channel) == LIBSSH2_ERROR_EAGAIN; ++i) {
            if (st.broken)
                break;
            st.waitSocket(Clock::now() + std::chrono::milliseconds(20), Clock::now(), nullptr);
        }
    }
};

bool isTransportError(int rc)
{
    return rc == LIBSSH2_ERROR_SOCKET_DISCONNECT || rc == LIBSSH2_ERROR_SOCKET_RECV || rc == LIBSSH2_ERROR_SOCKET_SEND
        || rc == LIBSSH2_ERROR_TIMEOUT;
}

} // namespace

CommandOutcome SshSession::run(const std::vector<std::string>& argv, const CommandIo& io,
                               const std::atomic<bool>* cancel)
{
    return run(shellCommand(argv), io, cancel);
}

CommandOutcome SshSession::run(const std::string& commandLine, const CommandIo& io, const std::atomic<bool>* cancel)
{
    State& st = *m_state;
    if (st.broken)
        throw SshError(SshFailure::Disconnected, "the SSH session to " + st.endpoint.host + " is no longer usable");
    const auto started = Clock::now();
    const auto deadline = io.timeout.count() > 0 ? started + io.timeout : Clock::time_point::max();
    CommandOutcome outcome;

    ChannelGuard guard { st };
    while (!(guard.channel = libssh2_channel_open_session(st.session))) {
        const int err = libssh2_session_last_errno(st.session);
        if (err != LIBSSH2_ERROR_EAGAIN)
            st.fail(err, "opening a channel");
        st.waitSocket(Clock::time_point::max(), started, cancel);
    }
    LIBSSH2_CHANNEL* ch = guard.channel;
    int rc;
    while ((rc = libssh2_channel_exec(ch, commandLine.c_str())) == LIBSSH2_ERROR_EAGAIN)
        st.waitSocket(Clock::time_point::max(), started, cancel);
    if (rc != 0) {
        if (isTransportError(rc))
            st.fail(rc, "starting a remote command");
        outcome.ending = CommandEnding::Lost;
        outcome.lostReason = "the server refused to run the command: " + st.lastError();
        return outcome;
    }

    std::size_t written = 0;
    bool eofSent = false;
    std::array<char, 32768> buffer {};
    auto lastProgress = Clock::now();
    while (true) {
        bool progressed = false;
        if (written < io.stdinData.size()) {
            const auto w = libssh2_channel_write(ch, io.stdinData.data() + written,
                                                 std::min<std::size_t>(buffer.size(), io.stdinData.size() - written));
            if (w > 0) {
                written += static_cast<std::size_t>(w);
                progressed = true;
            } else if (w != LIBSSH2_ERROR_EAGAIN && w < 0) {
                st.fail(static_cast<int>(w), "writing to a remote command");
            }
        } else if (!eofSent) {
            rc = libssh2_channel_send_eof(ch);
            if (rc == 0)
                eofSent = true;
            else if (rc != LIBSSH2_ERROR_EAGAIN)
                st.fail(rc, "closing a remote command's input");
        }
        for (int stream : { 0, SSH_EXTENDED_DATA_STDERR }) {
            while (true) {
                const auto n = libssh2_channel_read_ex(ch, stream, buffer.data(), buffer.size());
                if (n > 0) {
                    const std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
                    const auto& sink = stream == 0 ? io.onStdout : io.onStderr;
                    if (sink)
                        sink(chunk);
                    if (io.keepOutput)
                        (stream == 0 ? outcome.stdoutData : outcome.stderrData).append(chunk);
                    progressed = true;
                    continue;
                }
                if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
                    st.fail(static_cast<int>(n), "reading a remote command's output");
                break;
            }
        }
        if (libssh2_channel_eof(ch))
            break;
        if (progressed) {
            lastProgress = Clock::now();
            continue;
        }
        if (cancel && cancel->load()) {
            outcome.ending = CommandEnding::Cancelled;
            return outcome;
        }
        if (Clock::now() >= deadline) {
            outcome.ending = CommandEnding::TimedOut;
            return outcome;
        }
        try {
            st.waitSocket(deadline, lastProgress, cancel);
        } catch (const SshError& e) {
            if (e.failure() == SshFailure::Cancelled) {
                outcome.ending = CommandEnding::Cancelled;
                return outcome;
            }
            if (e.failure() == SshFailure::Timeout && !st.broken) {
                outcome.ending = CommandEnding::TimedOut;
                return outcome;
            }
            throw;
        }
    }

    while ((rc = libssh2_channel_close(ch)) == LIBSSH2_ERROR_EAGAIN)
        st.waitSocket(deadline, Clock::now(), cancel);
    if (rc == 0)
        while ((rc = libssh2_channel_wait_closed(ch)) == LIBSSH2_ERROR_EAGAIN)
            st.waitSocket(deadline, Clock::now(), cancel);
    if (rc != 0) {
        if (isTransportError(rc))
            st.fail(rc, "closing a remote command's channel");
        outcome.ending = CommandEnding::Lost;
        outcome.lostReason = "the channel did not close cleanly: " + st.lastError();
        return outcome;
    }
    char* signalName = nullptr;
    std::size_t signalLength = 0;
    libssh2_channel_get_exit_signal(ch, &signalName, &signalLength, nullptr, nullptr, nullptr, nullptr);
    if (signalName) {
        outcome.ending = CommandEnding::Signalled;
        outcome.signal.assign(signalName, signalLength);
        libssh2_free(st.session, signalName);
        return outcome;
    }
    outcome.ending = CommandEnding::Exited;
    outcome.exitCode = libssh2_channel_get_exit_status(ch);
    return outcome;
}

void SshSession::writeFile(const std::string& remotePath, std::string_view bytes, const std::atomic<bool>* cancel)
{
    CommandIo io;
    io.stdinData.assign(bytes);
    const auto out = run("umask 077 && cat > " + shellQuote(remotePath), io, cancel);
    if (!out.succeeded())
        throw SshError(out.ending == CommandEnding::Cancelled ? SshFailure::Cancelled : SshFailure::Protocol,
                       "writing " + remotePath + " on " + m_state->endpoint.host + " failed (" + out.describe()
                           + "): " + out.stderrData);
}

} // namespace shardwise::dispatch
