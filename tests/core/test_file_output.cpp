// writeFileSafely (shardwise/spec/file_output.hpp), the one writer of every export: a regular file is
// replaced by rename with its mode kept, a FIFO and a character device are written in place, a
// symbolic link is followed only to a FIFO or a character device, and a log folder is never a link.
#include "shardwise/spec/file_output.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace shardwise;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeRaw(const fs::path& p, const std::string& text)
{
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
}

struct stat lstatOf(const fs::path& p)
{
    struct stat st { };
    if (::lstat(p.c_str(), &st) != 0)
        st.st_mode = 0;
    return st;
}

} // namespace

class TestFileOutput : public QObject {
    Q_OBJECT

private slots:
    void aRegularFileIsReplacedWithItsModeKept()
    {
        QTemporaryDir dir;
        const fs::path target = fs::path(dir.path().toStdString()) / "runs.json";
        writeRaw(target, "old\n");
        QCOMPARE(::chmod(target.c_str(), 0600), 0);
        const ino_t before = lstatOf(target).st_ino;
        const FileWriteResult r = writeFileSafely(target, "new contents\n");
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.how, FileWrite::Replaced);
        QCOMPARE(readAll(target), std::string("new contents\n"));
        const struct stat after = lstatOf(target);
        QVERIFY(S_ISREG(after.st_mode));
        QCOMPARE(after.st_mode & 07777, mode_t(0600));
        QVERIFY(after.st_ino != before); // renamed over, not truncated in place
        QCOMPARE(after.st_uid, ::geteuid());
        // No temporary file left beside it.
        QCOMPARE(std::distance(fs::directory_iterator(target.parent_path()), fs::directory_iterator()), 1L);
    }

    void aNewFileGetsTheUmasksPermissions()
    {
        QTemporaryDir dir;
        const fs::path target = fs::path(dir.path().toStdString()) / "plan.toml";
        const mode_t old = ::umask(022);
        const FileWriteResult r = writeFileSafely(target, "x = 1\n");
        ::umask(old);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(lstatOf(target).st_mode & 07777, mode_t(0644));
    }

    void aFifoIsWrittenInPlace()
    {
        QTemporaryDir dir;
        const fs::path fifo = fs::path(dir.path().toStdString()) / "pipe";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        std::string received;
        std::thread reader([&] { received = readAll(fifo); });
        const FileWriteResult r = writeFileSafely(fifo, "through the pipe\n");
        reader.join();
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.how, FileWrite::InPlace);
        QCOMPARE(received, std::string("through the pipe\n"));
        QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));
    }

    void aLinkToAFifoIsWrittenInPlace()
    {
        QTemporaryDir dir;
        const fs::path base(dir.path().toStdString());
        QCOMPARE(::mkfifo((base / "pipe").c_str(), 0600), 0);
        fs::create_symlink(base / "pipe", base / "out");
        std::string received;
        std::thread reader([&] { received = readAll(base / "pipe"); });
        const FileWriteResult r = writeFileSafely(base / "out", "via a link\n");
        reader.join();
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(received, std::string("via a link\n"));
        QVERIFY(S_ISLNK(lstatOf(base / "out").st_mode));
        QVERIFY(S_ISFIFO(lstatOf(base / "pipe").st_mode));
    }

    void aLinkToAFileIsRefused()
    {
        QTemporaryDir dir;
        const fs::path base(dir.path().toStdString());
        writeRaw(base / "victim", "keep me\n");
        fs::create_symlink(base / "victim", base / "runs.csv");
        const FileWriteResult r = writeFileSafely(base / "runs.csv", "attacker's choice\n");
        QVERIFY(!r.ok());
        QVERIFY2(r.error.find("symbolic link") != std::string::npos, r.error.c_str());
        QVERIFY2(r.error.find((base / "victim").string()) != std::string::npos, r.error.c_str());
        QCOMPARE(readAll(base / "victim"), std::string("keep me\n"));
        QVERIFY(S_ISLNK(lstatOf(base / "runs.csv").st_mode));
        // A dangling link (where the file would be created) is refused as well.
        fs::create_symlink(base / "nothing-yet", base / "dangling");
        QVERIFY(!writeFileSafely(base / "dangling", "x").ok());
        QVERIFY(!fs::exists(base / "nothing-yet"));
    }

    void aDirectoryIsRefused()
    {
        QTemporaryDir dir;
        const FileWriteResult r = writeFileSafely(dir.path().toStdString(), "x");
        QVERIFY(!r.ok());
        QVERIFY2(r.error.find("directory") != std::string::npos, r.error.c_str());
    }

    void devNullStaysACharacterDevice()
    {
        struct stat before { };
        QCOMPARE(::stat("/dev/null", &before), 0);
        QVERIFY(S_ISCHR(before.st_mode));
        const FileWriteResult r = writeFileSafely("/dev/null", "discarded\n");
        struct stat after { };
        const bool stillDevice = ::lstat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode);
        if (!stillDevice && ::geteuid() == 0) {
            // Never leave the machine without /dev/null, whatever the code under test did.
            ::unlink("/dev/null");
            ::mknod("/dev/null", S_IFCHR | 0666, before.st_rdev);
            ::chmod("/dev/null", 0666);
        }
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.how, FileWrite::InPlace);
        QVERIFY(stillDevice);
        QCOMPARE(after.st_rdev, before.st_rdev);
    }

    void aLogFolderIsNeverALink()
    {
        QTemporaryDir dir;
        const fs::path base(dir.path().toStdString());
        // Created with its parents.
        QCOMPARE(createDirectoryNoFollow(base / "a" / "b" / "c"), std::string());
        QVERIFY(fs::is_directory(base / "a" / "b" / "c"));
        QCOMPARE(createDirectoryNoFollow(base / "a" / "b" / "c"), std::string()); // exists: fine
        // A link planted as the folder itself is refused, and nothing is created behind it.
        fs::create_directory(base / "elsewhere");
        fs::create_directory_symlink(base / "elsewhere", base / "logs");
        const std::string why = createDirectoryNoFollow(base / "logs");
        QVERIFY2(why.find("symbolic link") != std::string::npos, why.c_str());
        // A link above the folder made by this user (or root) is a layout, and is followed.
        QCOMPARE(createDirectoryNoFollow(base / "logs" / "zero3"), std::string());
        QVERIFY(fs::is_directory(base / "elsewhere" / "zero3"));
        // A file where a folder should be.
        writeRaw(base / "file", "");
        QVERIFY(!createDirectoryNoFollow(base / "file" / "x").empty());
    }

    void aLinkAboveTheFolderFromAnotherUserIsRefused()
    {
        if (::geteuid() != 0)
            QSKIP("needs root to make a link owned by another user");
        QTemporaryDir dir;
        const fs::path base(dir.path().toStdString());
        fs::create_directory(base / "target");
        fs::create_directory_symlink(base / "target", base / "planted");
        QCOMPARE(::lchown((base / "planted").c_str(), 65534, 65534), 0);
        const std::string why = createDirectoryNoFollow(base / "planted" / "zero3");
        QVERIFY2(why.find("another user") != std::string::npos, why.c_str());
        QVERIFY(!fs::exists(base / "target" / "zero3"));
    }

    void aRankLogIsNeverOpenedThroughALink()
    {
        QTemporaryDir dir;
        const fs::path base(dir.path().toStdString());
        writeRaw(base / "victim", "keep me\n");
        fs::create_symlink(base / "victim", base / "rank0.log");
        const int fd = openForWritingNoFollow(base / "rank0.log");
        const int err = errno;
        if (fd >= 0)
            ::close(fd);
        QCOMPARE(fd, -1);
        QCOMPARE(err, ELOOP);
        QCOMPARE(readAll(base / "victim"), std::string("keep me\n"));
    }

    void stdoutIsWrittenInPlace()
    {
        // "-" and /dev/stdout go to descriptor 1 as they are, whatever it is (here: a pipe).
        int fds[2];
        QCOMPARE(::pipe(fds), 0);
        const int saved = ::dup(STDOUT_FILENO);
        ::dup2(fds[1], STDOUT_FILENO);
        const FileWriteResult a = writeFileSafely("-", "one\n");
        const FileWriteResult b = writeFileSafely("/dev/stdout", "two\n");
        ::dup2(saved, STDOUT_FILENO);
        ::close(saved);
        ::close(fds[1]);
        char buf[64] = {};
        const ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
        ::close(fds[0]);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(std::string(buf, static_cast<std::size_t>(n > 0 ? n : 0)), std::string("one\ntwo\n"));
    }
};

QTEST_GUILESS_MAIN(TestFileOutput)
#include "test_file_output.moc"
