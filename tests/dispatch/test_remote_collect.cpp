// The remote follower's reply parser (dispatch::detail::parseCollected) against what a malicious or
// broken node can send: a frame length near 2^64 (which wrapped pos + length and spun the follower at
// 100 % CPU), lengths past the reply, odd file names and ranks. Each is refused at once, and a reply of
// any content is read in one pass.
#include "shardwise/dispatch/remote_launch.hpp"

#include <QElapsedTimer>
#include <QtTest>

using shardwise::dispatch::detail::Collected;
using shardwise::dispatch::detail::parseCollected;

namespace {

// Whether parsing `reply` throws std::runtime_error, and the message.
bool refused(const std::string& reply, std::string* why = nullptr)
{
    try {
        parseCollected(reply);
        return false;
    } catch (const std::runtime_error& e) {
        if (why)
            *why = e.what();
        return true;
    }
}

} // namespace

class TestRemoteCollect : public QObject {
    Q_OBJECT

private slots:
    void aWrappingLengthIsRefusedAtOnce()
    {
        QElapsedTimer clock;
        clock.start();
        std::string why;
        QVERIFY(refused("F rank0.out 0 18446744073709551581\n", &why));
        QVERIFY2(why.find("bad frame") != std::string::npos, why.c_str());
        // With bytes after the header too, and after a good frame.
        QVERIFY(refused("F rank0.out 0 18446744073709551581\n{\"event\":\"start\"}\n"));
        QVERIFY(refused("F rank0.out 0 3\nabcF rank0.log 0 18446744073709551615\nxyz"));
        QVERIFY(clock.elapsed() < 1000);
    }

    void lengthsAndNamesAreChecked()
    {
        QVERIFY(refused("F rank0.out 0 10\nshort")); // past the reply
        QVERIFY(refused("F rank0.out 0 -1\nx"));     // not a number
        QVERIFY(refused("F ../etc/passwd 0 1\nx"));  // not a rank file
        QVERIFY(refused("F rank0.exit 0 1\nx"));     // not .out / .log
        QVERIFY(refused("F rank.out 0 1\nx"));       // no rank
        QVERIFY(refused("X -5 exit 0\n"));           // negative rank
        QVERIFY(refused("X 99999999999 exit 0\n"));  // beyond any rank
        QVERIFY(refused("D abc\n"));
        QVERIFY(refused("Z 1\n"));           // unknown frame
        QVERIFY(refused("F rank0.out 0 1")); // header without its newline
    }

    void aGoodReplyIsRead()
    {
        const Collected c = parseCollected("F rank0.out 5 6\nhello\nF rank1.log 0 0\nX 0 exit 0\nD 1\n");
        QCOMPARE(c.chunks.size(), std::size_t(2));
        QCOMPARE(c.chunks.at("rank0.out").first, std::uint64_t(5));
        QCOMPARE(c.chunks.at("rank0.out").second, std::string("hello\n"));
        QCOMPARE(c.chunks.at("rank1.log").second, std::string());
        QCOMPARE(c.exits.at(0), std::string("exit 0"));
        QVERIFY(c.gone.count(1));
        // A frame may carry bytes that look like frame headers: they are data.
        const Collected d = parseCollected("F rank2.out 0 21\nF rank0.out 0 999999\n");
        QCOMPARE(d.chunks.at("rank2.out").second, std::string("F rank0.out 0 999999\n"));
    }
};

QTEST_GUILESS_MAIN(TestRemoteCollect)
#include "test_remote_collect.moc"
