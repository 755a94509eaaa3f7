// The Nodes page driven with QTest: this machine is added and shows the facts discovered on it;
// an SSH node against a real sshd on loopback (tests/dispatch's fixture) meets its unknown host key
// in the trust dialog, with the SHA256 fingerprint ssh-keygen prints; refusing leaves it untrusted
// and unconnected, trusting records the key and discovers the node's facts; a changed key is
// refused without an accept button. Prepare on an SSH node uploads and builds a stand-in runner
// (tests/dispatch/sshd/tiny_runner: the real runner's target and options without LibTorch, so a CI
// build takes seconds, not the real runner's many minutes on 2 cores), reports its progress, ends
// with the node prepared and is served from the node's cache the second time; cancel stops it.
// Probe on this machine runs the build's real runner (--device cpu), stores the probe and shows its
// figures in the facts panel; a cancelled probe and a missing runner store nothing. Probe network
// runs the real runner on two SSH nodes of the loopback sshd and the Plan form offers its figure.
#include "gui_test_main.hpp"

#include "jobs/node_job.hpp"
#include "jobs/probe_job.hpp"
#include "models/node_facts_model.hpp"
#include "models/node_table_model.hpp"
#include "models/rank_progress_model.hpp"
#include "pages/nodes/host_key_trust_dialog.hpp"
#include "pages/nodes/nodes_page.hpp"
#include "pages/nodes/ssh_node_dialog.hpp"
#include "pages/plan/plan_form.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/calibrate/network.hpp"
#include "shardwise/session/prepared_runner.hpp"
#include "shardwise/store/probes.hpp"

#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
#include "sshd/sshd_fixture.hpp"
#endif

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>

#include <algorithm>
#include <memory>
#include <unistd.h>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

constexpr int kDiscoveryTimeoutMs = 120'000;

QString thisHostName()
{
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    return QString::fromLocal8Bit(name);
}

} // namespace

class TestNodesPage : public QObject {
    Q_OBJECT

private slots:
    void sshNodeDialogMnemonicsNameTheirField();
    void init();
    void cleanup();

    void localNodeShowsDiscoveredFacts();
    void removedLocalNodeCanBeAddedAgain();
    void sshNodeDialogNamesTheMissingField_data();
    void sshNodeDialogNamesTheMissingField();
    void unreachableSshNodeReportsWhy();
    void prepareIsOnlyForSshNodes();
    void prepareOnSshNodeReportsProgressAndEndsPrepared();
    void cancelledPreparationLeavesTheNodeUnprepared();
    void unknownHostKeyRefusedLeavesNodeUntrusted();
    void unknownHostKeyTrustedConnectsAndDiscovers();
    void changedHostKeyIsRefusedWithoutAcceptButton();
    void aliasNodeThroughAJumpHostTrustsEachKeyByItsName();
    void probeOfThisMachineIsStoredAndShownInTheFacts();
    void cancelledProbeStoresNothing();
    void probeWithoutRunnerSaysSoAndStoresNothing();
    void aliasWhoseConfigGivesAUserNeedsNoneInTheDialog();
    void ncclSettingsAreEditedPerNode();
    void networkProbeIsStoredAndOfferedOnThePlanPage();

private:
#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
    // Starts `sshd`, adds it as a trusted SSH node whose Prepare builds tests/dispatch's tiny runner
    // into the sshd's folder, and selects it once its connection test passed; 0 on failure.
    qint64 addPreparableNode(testing::SshdFixture& sshd, std::size_t uploadChunk);
#endif

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Workspace> m_workspace;
    std::unique_ptr<NodesPage> m_page;
};

void TestNodesPage::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_workspace = std::make_unique<Workspace>();
    QString error;
    QVERIFY2(m_workspace->open(m_dir->filePath(QStringLiteral("shardwise.sqlite")), &error), qPrintable(error));
    m_page = std::make_unique<NodesPage>(*m_workspace);
    // Never the user's own ~/.ssh: both known_hosts files live in the test's folder.
    dispatch::SshOptions options;
    options.knownHosts.user = m_dir->filePath(QStringLiteral("user_known_hosts")).toStdString();
    options.knownHosts.app = m_dir->filePath(QStringLiteral("app_known_hosts")).toStdString();
    options.timeouts.connect = std::chrono::seconds(5);
    options.sshConfig.clear();
    m_page->job()->setSshOptions(options);
    m_page->resize(1200, 800);
    m_page->show();
}

void TestNodesPage::cleanup()
{
    m_page.reset();
    m_workspace.reset();
    m_dir.reset();
}

void TestNodesPage::localNodeShowsDiscoveredFacts()
{
    // A new workspace starts with this machine as "local", not yet discovered.
    QCOMPARE(m_page->nodeModel()->rowCount(), 1);
    QCOMPARE(m_page->nodeModel()->index(0, NodeTableModel::NameColumn).data().toString(), QStringLiteral("local"));
    QCOMPARE(m_page->nodeModel()->index(0, NodeTableModel::GpusColumn).data().toString(),
             QStringLiteral("Not discovered yet"));
    QVERIFY(!m_page->addLocalButton()->isEnabled());
    QVERIFY(!m_page->testButton()->isEnabled()); // nothing to connect to
    QVERIFY(m_page->discoverButton()->isEnabled());

    QSignalSpy facts(m_page->job(), &NodeJob::factsAvailable);
    QTest::mouseClick(m_page->discoverButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(facts.count() == 1, kDiscoveryTimeoutMs);

    QCOMPARE(m_page->factsModel()->valueOf(QStringLiteral("Host name")), thisHostName());
    QCOMPARE(m_page->factsModel()->valueOf(QStringLiteral("CPU cores")).toInt(),
             static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
    QVERIFY(m_page->factsModel()->valueOf(QStringLiteral("Memory")).contains(QStringLiteral("GiB")));
    QVERIFY(m_page->nodeModel()->index(0, NodeTableModel::GpusColumn).data().toString()
            != QStringLiteral("Not discovered yet"));
    const auto stored = store::findNodeByName(*m_workspace->database(), "local");
    QVERIFY(stored);
    QCOMPARE(QString::fromStdString(stored->facts.value("hostname", std::string())), thisHostName());
}

void TestNodesPage::removedLocalNodeCanBeAddedAgain()
{
    QTest::mouseClick(m_page->removeButton(), Qt::LeftButton);
    QCOMPARE(m_page->nodeModel()->rowCount(), 0);
    QVERIFY(m_page->addLocalButton()->isEnabled());
    QSignalSpy facts(m_page->job(), &NodeJob::factsAvailable);
    QTest::mouseClick(m_page->addLocalButton(), Qt::LeftButton);
    QCOMPARE(m_page->nodeModel()->rowCount(), 1);
    QVERIFY(!m_page->addLocalButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(facts.count() == 1, kDiscoveryTimeoutMs);
    QCOMPARE(m_page->factsModel()->valueOf(QStringLiteral("Host name")), thisHostName());
}

void TestNodesPage::aliasWhoseConfigGivesAUserNeedsNoneInTheDialog()
{
    dispatch::SshOptions options = m_page->job()->sshOptions();
    options.sshConfig = m_dir->filePath(QStringLiteral("ssh_config")).toStdString();
    QFile config(QString::fromStdString(options.sshConfig.string()));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("Host gpu-alias\n  HostName 127.0.0.9\n  User ml\n");
    config.close();
    SshNodeDialog dialog;
    dialog.setSshOptions(options);
    dialog.nameEdit()->setText(QStringLiteral("box"));
    dialog.userEdit()->clear();
    dialog.hostEdit()->setText(QStringLiteral("gpu-alias"));
    QVERIFY2(dialog.validationError().isEmpty(), qPrintable(dialog.validationError()));
    dialog.hostEdit()->setText(QStringLiteral("other-host")); // no User for it in the config
    QVERIFY(dialog.validationError().contains(QStringLiteral("node.user")));
}

// Every label with a mnemonic ("&Key file:") has a buddy, else Qt shows the '&' as text.
void TestNodesPage::sshNodeDialogMnemonicsNameTheirField()
{
    SshNodeDialog dialog;
    int mnemonics = 0;
    for (const QLabel* label : dialog.findChildren<QLabel*>()) {
        if (!label->text().contains(QLatin1Char('&')))
            continue;
        ++mnemonics;
        QVERIFY2(label->buddy(), qPrintable(label->text()));
    }
    QVERIFY(mnemonics >= 6);
    const auto* key = dialog.findChild<QLabel*>(QStringLiteral("keyFileLabel"));
    QVERIFY(key);
    QVERIFY(qobject_cast<QLineEdit*>(key->buddy()));
}

void TestNodesPage::ncclSettingsAreEditedPerNode()
{
    const qint64 id = m_page->nodeModel()->nodeAt(0)->id;
    m_page->selectNode(id);
    QVERIFY(m_page->ncclEnvButton()->isEnabled());
    // Through the dialog the button opens: one NAME=VALUE per line.
    QTest::mouseClick(m_page->ncclEnvButton(), Qt::LeftButton);
    QInputDialog* dialog = m_page->ncclDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->textValue().isEmpty()); // none by default
    dialog->setTextValue(QStringLiteral("NCCL_NVLS_ENABLE=0\nTORCH_SYMM_MEM_DISABLE_MULTICAST=1\n"));
    dialog->accept();
    const std::map<std::string, std::string> expected { { "NCCL_NVLS_ENABLE", "0" },
                                                        { "TORCH_SYMM_MEM_DISABLE_MULTICAST", "1" } };
    QCOMPARE(store::findNode(*m_workspace->database(), id)->ncclEnv, expected);
    QVERIFY2(m_page->statusLine()->text().contains(QStringLiteral("NCCL_NVLS_ENABLE=0")),
             qPrintable(m_page->statusLine()->text()));

    // A variable the launcher owns, or a line that is no setting: refused by name, nothing changed.
    QVERIFY(!m_page->setNcclEnvironment(id, QStringLiteral("MASTER_PORT=1")));
    QVERIFY2(m_page->statusLine()->text().contains(QStringLiteral("node.nccl_env")),
             qPrintable(m_page->statusLine()->text()));
    QVERIFY(!m_page->setNcclEnvironment(id, QStringLiteral("NCCL_DEBUG")));
    QCOMPARE(store::findNode(*m_workspace->database(), id)->ncclEnv, expected);
    // Empty: none again.
    QVERIFY(m_page->setNcclEnvironment(id, QString()));
    QVERIFY(store::findNode(*m_workspace->database(), id)->ncclEnv.empty());
}

void TestNodesPage::sshNodeDialogNamesTheMissingField_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("user");
    QTest::addColumn<bool>("keyFileAuth");
    QTest::addColumn<QString>("field");
    QTest::newRow("no name") << QString() << QStringLiteral("gpu-box") << QStringLiteral("ml") << false
                             << QStringLiteral("name");
    QTest::newRow("no host") << QStringLiteral("box") << QString() << QStringLiteral("ml") << false
                             << QStringLiteral("host");
    QTest::newRow("no user") << QStringLiteral("box") << QStringLiteral("gpu-box") << QString() << false
                             << QStringLiteral("user");
    QTest::newRow("key file auth without a file")
        << QStringLiteral("box") << QStringLiteral("gpu-box") << QStringLiteral("ml") << true << QStringLiteral("key");
    QTest::newRow("complete") << QStringLiteral("box") << QStringLiteral("gpu-box") << QStringLiteral("ml") << false
                              << QString();
}

void TestNodesPage::sshNodeDialogNamesTheMissingField()
{
    QFETCH(QString, name);
    QFETCH(QString, host);
    QFETCH(QString, user);
    QFETCH(bool, keyFileAuth);
    QFETCH(QString, field);
    SshNodeDialog dialog;
    dialog.setSshOptions(m_page->job()->sshOptions()); // no ssh client configuration: a user is needed
    dialog.nameEdit()->setText(name);
    dialog.hostEdit()->setText(host);
    dialog.userEdit()->setText(user);
    dialog.authBox()->setCurrentIndex(keyFileAuth ? 1 : 0);
    const QString error = dialog.validationError();
    if (field.isEmpty()) {
        QVERIFY2(error.isEmpty(), qPrintable(error));
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
    } else {
        QVERIFY2(error.contains(field, Qt::CaseInsensitive), qPrintable(error));
        dialog.accept();
        QVERIFY(dialog.result() != QDialog::Accepted);
        QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("sshNodeError"))->text().contains(field, Qt::CaseInsensitive));
    }
}

void TestNodesPage::unreachableSshNodeReportsWhy()
{
    store::Node node;
    node.name = "nowhere";
    node.kind = store::NodeKind::Ssh;
    node.host = "127.0.0.1";
    node.port = 1; // tcpmux: nothing listens there on a test machine
    node.user = "nobody";
    QSignalSpy failed(m_page->job(), &NodeJob::nodeFailed);
    const qint64 id = m_page->addSshNode(node);
    QVERIFY(id > 0);
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, 30'000);
    QCOMPARE(failed.first().at(0).toLongLong(), id);
    QVERIFY(m_page->statusLine()->text().startsWith(QStringLiteral("nowhere: ")));
    QVERIFY(m_page->statusLine()->property("problem").toBool());
    QVERIFY(!m_page->trustDialog());
}

void TestNodesPage::prepareIsOnlyForSshNodes()
{
    const qint64 local = m_page->addLocalNode();
    QVERIFY(local > 0);
    m_page->selectNode(local);
    QVERIFY(!m_page->prepareButton()->isEnabled());
    QVERIFY(!m_page->cancelPreparationButton()->isEnabled());
    QVERIFY(m_page->prepareButton()->toolTip().contains(QStringLiteral("builds them there")));
}

#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
namespace {

dispatch::RemoteBundle tinyRunnerSources()
{
    return dispatch::makeRemoteBundle(std::filesystem::path(SHARDWISE_SOURCE_DIR) / "tests/dispatch/sshd/tiny_runner",
                                      { "CMakeLists.txt", "main.cpp" });
}

// An SSH node on the loopback sshd whose host key is already trusted.
store::Node trustedLoopbackNode(const testing::SshdFixture& sshd)
{
    sshd.trustHostKey();
    store::Node node;
    node.name = "loopback";
    node.kind = store::NodeKind::Ssh;
    node.host = "127.0.0.1";
    node.port = sshd.port();
    node.user = sshd.userName();
    node.auth = store::SshAuth::KeyFile;
    node.keyFile = sshd.path(QStringLiteral("user_key")).toStdString();
    return node;
}

} // namespace

qint64 TestNodesPage::addPreparableNode(testing::SshdFixture& sshd, std::size_t uploadChunk)
{
    if (!sshd.start().isEmpty())
        return 0;
    m_page->job()->setSshOptions(sshd.options());
    m_page->setRunnerSources(tinyRunnerSources);
    dispatch::PreparationOptions options;
    options.remoteRoot = sshd.path(QStringLiteral("remote-cache")).toStdString();
    options.uploadChunk = uploadChunk;
    options.jobs = 1;
    m_page->setPreparationOptions(options);
    QSignalSpy tested(m_page->job(), &NodeJob::connectionTested);
    const qint64 id = m_page->addSshNode(trustedLoopbackNode(sshd));
    if (id <= 0 || !QTest::qWaitFor([&] { return tested.count() == 1; }, 30'000))
        return 0;
    m_page->selectNode(id);
    return id;
}
#endif

void TestNodesPage::prepareOnSshNodeReportsProgressAndEndsPrepared()
{
#ifndef SHARDWISE_HAVE_SSHD_FIXTURE
    QSKIP("tests/dispatch's sshd fixture is not part of this build (core/dispatch without SSH)");
#else
    if (const QString why = testing::SshdFixture::unavailableReason(); !why.isEmpty())
        QSKIP(qPrintable(why));
    testing::SshdFixture sshd;
    const qint64 id = addPreparableNode(sshd, 256); // several round trips, so the upload moves the bar
    QVERIFY(id > 0);
    QVERIFY(m_page->prepareButton()->isEnabled());

    QSignalSpy progress(m_page->job(), &NodeJob::preparationProgress);
    QSignalSpy prepared(m_page->job(), &NodeJob::prepared);
    QSignalSpy failed(m_page->job(), &NodeJob::nodeFailed);
    QTest::mouseClick(m_page->prepareButton(), Qt::LeftButton);
    QVERIFY(m_page->preparationProgress()->isVisible());
    QVERIFY(!m_page->prepareButton()->isEnabled());
    QVERIFY(m_page->cancelPreparationButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(prepared.count() == 1 || failed.count() > 0, 300'000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(1).toString()));

    // Progress arrived phase by phase, never going backwards, through upload and build to the end.
    QVERIFY(progress.count() >= 3);
    QStringList phases;
    double last = -1;
    for (const QList<QVariant>& p : progress) {
        QVERIFY(p.at(1).toDouble() >= last);
        last = p.at(1).toDouble();
        if (!phases.contains(p.at(2).toString()))
            phases << p.at(2).toString();
    }
    QCOMPARE(last, 1.0);
    QVERIFY2(phases.contains(QStringLiteral("uploading")) && phases.contains(QStringLiteral("building")),
             qPrintable(phases.join(u',')));
    QVERIFY(!m_page->preparationProgress()->isVisible());
    QVERIFY(m_page->prepareButton()->isEnabled());
    QVERIFY2(m_page->statusLine()->text().contains(QStringLiteral("is prepared")),
             qPrintable(m_page->statusLine()->text()));

    // The node is prepared in the store: the runner it built is recorded with its facts, and runs.
    const auto stored = store::findNode(*m_workspace->database(), id);
    QVERIFY(stored);
    const QString runner = QString::fromStdString(session::preparedRunnerPath(stored->facts));
    QVERIFY2(runner.startsWith(sshd.path(QStringLiteral("remote-cache"))), qPrintable(runner));
    QProcess built;
    built.start(runner, {});
    QVERIFY(built.waitForFinished(10000));
    QCOMPARE(built.readAllStandardOutput(), QByteArray("tiny runner\n"));
    QCOMPARE(m_page->factsModel()->valueOf(QStringLiteral("Host name")), thisHostName());

    // A second Prepare finds the build in the node's cache.
    QTest::mouseClick(m_page->prepareButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(prepared.count() == 2 || failed.count() > 0, 120'000);
    QVERIFY(prepared.at(1).at(1).value<dispatch::PreparedRunner>().fromCache);
    QVERIFY2(m_page->statusLine()->text().contains(QStringLiteral("already built")),
             qPrintable(m_page->statusLine()->text()));
#endif
}

void TestNodesPage::cancelledPreparationLeavesTheNodeUnprepared()
{
#ifndef SHARDWISE_HAVE_SSHD_FIXTURE
    QSKIP("tests/dispatch's sshd fixture is not part of this build (core/dispatch without SSH)");
#else
    if (const QString why = testing::SshdFixture::unavailableReason(); !why.isEmpty())
        QSKIP(qPrintable(why));
    testing::SshdFixture sshd;
    const qint64 id = addPreparableNode(sshd, 16); // many round trips: the cancel lands mid-upload
    QVERIFY(id > 0);

    QSignalSpy progress(m_page->job(), &NodeJob::preparationProgress);
    QSignalSpy prepared(m_page->job(), &NodeJob::prepared);
    QSignalSpy failed(m_page->job(), &NodeJob::nodeFailed);
    QTest::mouseClick(m_page->prepareButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 60'000);
    QTest::mouseClick(m_page->cancelPreparationButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, 60'000);
    QVERIFY(prepared.isEmpty());
    QVERIFY2(failed.front().at(1).toString().contains(QStringLiteral("cancelled")),
             qPrintable(failed.front().at(1).toString()));
    QVERIFY(!m_page->preparationProgress()->isVisible());
    QVERIFY(m_page->prepareButton()->isEnabled());
    QVERIFY(m_page->statusLine()->property("problem").toBool());
    const auto stored = store::findNode(*m_workspace->database(), id);
    QVERIFY(stored);
    QVERIFY(session::preparedRunnerPath(stored->facts).empty());
#endif
}

void TestNodesPage::unknownHostKeyRefusedLeavesNodeUntrusted()
{
#ifndef SHARDWISE_HAVE_SSHD_FIXTURE
    QSKIP("tests/dispatch's sshd fixture is not part of this build (core/dispatch without SSH)");
#else
    if (const QString why = testing::SshdFixture::unavailableReason(); !why.isEmpty())
        QSKIP(qPrintable(why));
    testing::SshdFixture sshd;
    const QString started = sshd.start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    dispatch::SshOptions options = sshd.options();
    m_page->job()->setSshOptions(options);

    store::Node node;
    node.name = "loopback";
    node.kind = store::NodeKind::Ssh;
    node.host = "127.0.0.1";
    node.port = sshd.port();
    node.user = sshd.userName();
    node.auth = store::SshAuth::KeyFile;
    node.keyFile = sshd.path(QStringLiteral("user_key")).toStdString();
    QSignalSpy untrusted(m_page->job(), &NodeJob::hostKeyUntrusted);
    const qint64 id = m_page->addSshNode(node);
    QVERIFY(id > 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->trustDialog() != nullptr, 30'000);
    HostKeyTrustDialog* dialog = m_page->trustDialog();
    QCOMPARE(dialog->fingerprintText(), sshd.hostKeyFingerprint());
    QVERIFY(dialog->fingerprintText().startsWith(QStringLiteral("SHA256:")));
    QVERIFY(!dialog->keyChanged());
    QVERIFY(dialog->messageText().contains(QStringLiteral("loopback")));
    QCOMPARE(dialog->findChild<QLabel*>(QStringLiteral("hostKeyFingerprint"))->text(), sshd.hostKeyFingerprint());
    QVERIFY(dialog->trustButton());
    // The server saw no user name and no key: the host key is checked before authentication.
    QVERIFY(!sshd.log().contains(QStringLiteral("Accepted publickey")));

    const dispatch::HostKey presented = dialog->hostKey();
    QTest::mouseClick(dialog->findChild<QPushButton*>(QStringLiteral("refuseHostKey")), Qt::LeftButton);
    QTRY_VERIFY(m_page->statusLine()->text().contains(QStringLiteral("not trusted")));
    const auto stored = store::findNode(*m_workspace->database(), id);
    QVERIFY(stored);
    QVERIFY(stored->hostKeyFingerprint.empty());
    QFile appKnownHosts(QString::fromStdString(options.knownHosts.app.string()));
    if (appKnownHosts.open(QIODevice::ReadOnly))
        QVERIFY2(!appKnownHosts.readAll().contains(QByteArray::fromStdString(presented.base64)),
                 "a refused key was recorded");
    QCOMPARE(
        m_page->nodeModel()->index(m_page->nodeModel()->rowOf(id), NodeTableModel::HostKeyColumn).data().toString(),
        QStringLiteral("Not accepted yet"));
#endif
}

void TestNodesPage::unknownHostKeyTrustedConnectsAndDiscovers()
{
#ifndef SHARDWISE_HAVE_SSHD_FIXTURE
    QSKIP("tests/dispatch's sshd fixture is not part of this build (core/dispatch without SSH)");
#else
    if (const QString why = testing::SshdFixture::unavailableReason(); !why.isEmpty())
        QSKIP(qPrintable(why));
    testing::SshdFixture sshd;
    const QString started = sshd.start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    m_page->job()->setSshOptions(sshd.options());

    store::Node node;
    node.name = "loopback";
    node.kind = store::NodeKind::Ssh;
    node.host = "127.0.0.1";
    node.port = sshd.port();
    node.user = sshd.userName();
    node.auth = store::SshAuth::KeyFile;
    node.keyFile = sshd.path(QStringLiteral("user_key")).toStdString();
    QSignalSpy facts(m_page->job(), &NodeJob::factsAvailable);
    QSignalSpy tested(m_page->job(), &NodeJob::connectionTested);
    const qint64 id = m_page->addSshNode(node);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->trustDialog() != nullptr, 30'000);
    QTest::mouseClick(m_page->trustDialog()->trustButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(facts.count() == 1, kDiscoveryTimeoutMs);

    const auto stored = store::findNode(*m_workspace->database(), id);
    QVERIFY(stored);
    QCOMPARE(QString::fromStdString(stored->hostKeyFingerprint), sshd.hostKeyFingerprint());
    // The loopback node is this machine, so its facts are this machine's.
    QCOMPARE(m_page->factsModel()->valueOf(QStringLiteral("Host name")), thisHostName());
    QCOMPARE(
        m_page->nodeModel()->index(m_page->nodeModel()->rowOf(id), NodeTableModel::HostKeyColumn).data().toString(),
        sshd.hostKeyFingerprint());

    // Trusted now: a connection test goes straight through.
    m_page->selectNode(id);
    QTest::mouseClick(m_page->testButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(tested.count() == 1, 30'000);
    QVERIFY2(m_page->statusLine()->text().startsWith(QStringLiteral("Connected as")),
             qPrintable(m_page->statusLine()->text()));
#endif
}

void TestNodesPage::changedHostKeyIsRefusedWithoutAcceptButton()
{
#ifndef SHARDWISE_HAVE_SSHD_FIXTURE
    QSKIP("tests/dispatch's sshd fixture is not part of this build (core/dispatch without SSH)");
#else
    if (const QString why = testing::SshdFixture::unavailableReason(); !why.isEmpty())
        QSKIP(qPrintable(why));
    testing::SshdFixture sshd;
    const QString started = sshd.start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    m_page->job()->setSshOptions(sshd.options());
    sshd.trustHostKey();
    const QString replaced = sshd.replaceHostKey();
    QVERIFY2(replaced.isEmpty(), qPrintable(replaced));

    store::Node node;
    node.name = "reinstalled";
    node.kind = store::NodeKind::Ssh;
    node.host = "127.0.0.1";
    node.port = sshd.port();
    node.user = sshd.userName();
    node.auth = store::SshAuth::KeyFile;
    node.keyFile = sshd.path(QStringLiteral("user_key")).toStdString();
    QSignalSpy untrusted(m_page->job(), &NodeJob::hostKeyUntrusted);
    const qint64 id = m_page->addSshNode(node);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->trustDialog() != nullptr, 30'000);
    HostKeyTrustDialog* dialog = m_page->trustDialog();
    QVERIFY(dialog->keyChanged());
    QVERIFY(!dialog->trustButton());
    QCOMPARE(dialog->fingerprintText(), sshd.hostKeyFingerprint());
    QVERIFY(dialog->messageText().contains(QStringLiteral("refuses")));
    QCOMPARE(untrusted.count(), 1);
    QVERIFY(untrusted.first().at(2).toBool());
    dialog->accept(); // even forcing acceptance records nothing for a changed key
    QTRY_VERIFY(m_page->statusLine()->text().contains(QStringLiteral("not trusted")));
    const auto stored = store::findNode(*m_workspace->database(), id);
    QVERIFY(stored);
    QVERIFY(stored->hostKeyFingerprint.empty());
#endif
}

namespace {

QString writeExecutable(const QTemporaryDir& dir, const QString& name, const QByteArray& body)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write("#!/bin/sh\n" + body + "\n");
    f.close();
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

} // namespace

void TestNodesPage::aliasNodeThroughAJumpHostTrustsEachKeyByItsName()
{
#ifndef SHARDWISE_HAVE_SSHD_FIXTURE
    QSKIP("tests/dispatch's sshd fixture is not part of this build (core/dispatch without SSH)");
#else
    if (const QString why = testing::SshdFixture::unavailableReason(); !why.isEmpty())
        QSKIP(qPrintable(why));
    testing::SshdFixture bastion;
    testing::SshdFixture target({ QStringLiteral("127.0.0.2") });
    for (testing::SshdFixture* s : { &bastion, &target }) {
        const QString started = s->start();
        QVERIFY2(started.isEmpty(), qPrintable(started));
    }
    // The node is only an alias: address, port and the jump host come from the ssh configuration.
    dispatch::SshOptions options = target.options();
    QFile config(QString::fromStdString(options.sshConfig.string()));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(QStringLiteral("Host bastion\n  HostName 127.0.0.1\n  Port %1\n  IdentityFile %2\n"
                                "Host gpu-alias\n  HostName 127.0.0.2\n  Port %3\n  ProxyJump bastion\n")
                     .arg(bastion.port())
                     .arg(bastion.path(QStringLiteral("user_key")))
                     .arg(target.port())
                     .toUtf8());
    config.close();
    m_page->job()->setSshOptions(options);

    store::Node node;
    node.name = "behind-bastion";
    node.kind = store::NodeKind::Ssh;
    node.host = "gpu-alias";
    node.port = 22;
    node.user = target.userName();
    node.auth = store::SshAuth::KeyFile;
    node.keyFile = target.path(QStringLiteral("user_key")).toStdString();
    QSignalSpy facts(m_page->job(), &NodeJob::factsAvailable);
    const qint64 id = m_page->addSshNode(node);
    // First the jump host's key, then the node's, each shown with the address that presented it.
    QTRY_VERIFY_WITH_TIMEOUT(m_page->trustDialog() != nullptr, 30'000);
    QCOMPARE(m_page->trustDialog()->fingerprintText(), bastion.hostKeyFingerprint());
    QTest::mouseClick(m_page->trustDialog()->trustButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->trustDialog() != nullptr
                                 && m_page->trustDialog()->fingerprintText() == target.hostKeyFingerprint(),
                             30'000);
    QTest::mouseClick(m_page->trustDialog()->trustButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(facts.count() == 1, kDiscoveryTimeoutMs);

    QFile known(QString::fromStdString(options.knownHosts.app.string()));
    QVERIFY(known.open(QIODevice::ReadOnly));
    const QString recorded = QString::fromUtf8(known.readAll());
    QVERIFY2(recorded.contains(QStringLiteral("[127.0.0.1]:%1 ").arg(bastion.port())), qPrintable(recorded));
    QVERIFY2(recorded.contains(QStringLiteral("[127.0.0.2]:%1 ").arg(target.port())), qPrintable(recorded));
    QVERIFY2(!recorded.contains(QStringLiteral("gpu-alias")), qPrintable(recorded));
    // The node's row remembers the node's key, not the jump host's.
    const auto stored = store::findNode(*m_workspace->database(), id);
    QVERIFY(stored);
    QCOMPARE(QString::fromStdString(stored->hostKeyFingerprint), target.hostKeyFingerprint());
    QVERIFY(bastion.waitForLog(QStringLiteral("target 127.0.0.2 port %1").arg(target.port()), 5000));
#endif
}

void TestNodesPage::probeOfThisMachineIsStoredAndShownInTheFacts()
{
    const QString runner = QStringLiteral(SHARDWISE_TEST_RUNNER);
    if (runner.isEmpty() || !QFileInfo::exists(runner))
        QSKIP("shardwise-runner is not built in this build tree");
    m_page->probeJob()->setLocalRunner(runner.toStdString());
    // Small buffers keep the probe to seconds; the figures are measured all the same.
    m_page->probeJob()->setMaxBytes(std::int64_t { 2 } << 20);
    QCOMPARE(m_page->selectedNodeId().has_value(), true);
    QVERIFY(m_page->probeButton()->isEnabled());
    QVERIFY(!m_page->cancelProbeButton()->isEnabled());
    QCOMPARE(m_page->factsModel()->valueOf(QStringLiteral("Probed")), QString()); // never probed

    QSignalSpy finished(m_page->probeJob(), &ProbeJob::finished);
    QTest::mouseClick(m_page->probeButton(), Qt::LeftButton);
    QVERIFY(!m_page->probeButton()->isEnabled());
    QVERIFY(m_page->cancelProbeButton()->isEnabled());
    QVERIFY(m_page->probeProgress()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 300'000);

    QVERIFY2(!m_page->statusLine()->property("problem").toBool(), qPrintable(m_page->statusLine()->text()));
    QVERIFY2(m_page->statusLine()->text().contains(QStringLiteral("local probed")),
             qPrintable(m_page->statusLine()->text()));
    QVERIFY(!m_page->probeProgress()->isVisible());
    QVERIFY(m_page->probeButton()->isEnabled());
    QVERIFY(!m_page->cancelProbeButton()->isEnabled());

    const auto stored = store::latestProbe(*m_workspace->database(), "local");
    QVERIFY(stored);
    QCOMPARE(QString::fromStdString(stored->event.deviceName), QStringLiteral("cpu"));
    const QString probed = m_page->factsModel()->valueOf(QStringLiteral("Probed"));
    QVERIFY2(probed.contains(QStringLiteral("cpu")) && probed.contains(QStringLiteral("rank 0 of 1")),
             qPrintable(probed));
    const auto adam = std::find_if(stored->event.results.begin(), stored->event.results.end(),
                                   [](const protocol::ProbeResult& r) { return r.kind == "cpu_adamw"; });
    QVERIFY(adam != stored->event.results.end());
    const QString shownAdam = m_page->factsModel()->valueOf(QStringLiteral("CPU AdamW rate"));
    QCOMPARE(shownAdam, QStringLiteral("%1 M parameters/s").arg(QLocale().toString(adam->value / 1e6, 'f', 1)));
    const auto copy = std::find_if(stored->event.results.begin(), stored->event.results.end(),
                                   [](const protocol::ProbeResult& r) { return r.kind == "device_copy"; });
    QVERIFY(copy != stored->event.results.end());
    // Memory copies run at GB/s even on a shared CPU: two decimals below 100, none above.
    QVERIFY(copy->value >= 1);
    QCOMPARE(m_page->factsModel()->valueOf(QStringLiteral("Device copy bandwidth")),
             QStringLiteral("%1 GB/s at %2")
                 .arg(QLocale().toString(copy->value, 'f', copy->value >= 100 ? 0 : 2), formatBytes(copy->bytes)));
    const auto matmul = std::find_if(stored->event.results.begin(), stored->event.results.end(),
                                     [](const protocol::ProbeResult& r) { return r.kind == "matmul_fp32"; });
    QVERIFY(matmul != stored->event.results.end());
    QVERIFY(m_page->factsModel()->valueOf(QStringLiteral("Matmul rate (fp32)")).endsWith(QStringLiteral(" TFLOP/s")));
}

void TestNodesPage::cancelledProbeStoresNothing()
{
    // A runner that takes its time: the probe is cancelled while it runs.
    const QString slow
        = writeExecutable(*m_dir, QStringLiteral("slow-runner"), "echo 'probing cpu' >&2; exec sleep 120");
    QVERIFY(!slow.isEmpty());
    m_page->probeJob()->setLocalRunner(slow.toStdString());
    QSignalSpy finished(m_page->probeJob(), &ProbeJob::finished);
    QTest::mouseClick(m_page->probeButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->statusLine()->text().contains(QStringLiteral("probing cpu")), 20'000);
    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(m_page->cancelProbeButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30'000);
    QVERIFY(clock.elapsed() < 30'000);
    QVERIFY2(m_page->statusLine()->text().contains(QStringLiteral("was cancelled; nothing was stored")),
             qPrintable(m_page->statusLine()->text()));
    QVERIFY(store::listProbes(*m_workspace->database()).empty());
    QVERIFY(m_page->probeButton()->isEnabled());
}

void TestNodesPage::probeWithoutRunnerSaysSoAndStoresNothing()
{
    const std::string missing = m_dir->filePath(QStringLiteral("no-runner-here")).toStdString();
    m_page->probeJob()->setLocalRunner(missing);
    QSignalSpy finished(m_page->probeJob(), &ProbeJob::finished);
    QTest::mouseClick(m_page->probeButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30'000);
    QVERIFY(m_page->statusLine()->property("problem").toBool());
    QCOMPARE(
        m_page->statusLine()->text(),
        QStringLiteral("The probe of local failed: no shardwise-runner at %1").arg(QString::fromStdString(missing)));
    QVERIFY(store::listProbes(*m_workspace->database()).empty());
    QCOMPARE(m_page->factsModel()->valueOf(QStringLiteral("Probed")), QString());
}

void TestNodesPage::networkProbeIsStoredAndOfferedOnThePlanPage()
{
#ifndef SHARDWISE_HAVE_SSHD_FIXTURE
    QSKIP("built without the sshd fixture");
#else
    const QString runner = QStringLiteral(SHARDWISE_TEST_RUNNER);
    if (runner.isEmpty() || !QFileInfo::exists(runner))
        QSKIP("shardwise-runner is not built in this build tree");
    testing::SshdFixture sshd;
    QVERIFY(sshd.start().isEmpty());
    m_page->job()->setSshOptions(sshd.options());
    m_page->probeJob()->setMaxBytes(std::int64_t { 2 } << 20);
    qint64 first = 0;
    for (const char* name : { "box-a", "box-b" }) {
        store::Node node = trustedLoopbackNode(sshd);
        node.name = name;
        node.facts = { { "prepared_runner", { { "path", runner.toStdString() } } } };
        node.ncclEnv = { { "GLOO_SOCKET_IFNAME", "lo" } }; // both "nodes" are this machine's loopback
        const qint64 id = store::addNode(*m_workspace->database(), node);
        first = first ? first : id;
    }
    m_page->reload();
    m_page->selectNode(first);
    QVERIFY(m_page->probeNetworkButton()->isEnabled());
    QSignalSpy finished(m_page->probeJob(), &ProbeJob::finished);
    QVERIFY(m_page->probeNetworkWith({ QStringLiteral("box-b") }));
    QVERIFY(!m_page->probeNetworkButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 300'000);
    const QString status = m_page->statusLine()->text();
    QVERIFY2(!m_page->statusLine()->property("problem").toBool(), qPrintable(status));
    const auto networks = calibrate::measuredNetworks(*m_workspace->database());
    QCOMPARE(networks.size(), std::size_t(1));
    const calibrate::MeasuredNetwork& n = networks.front();
    QCOMPARE(n.name, std::string("box-a+box-b"));
    QCOMPARE(n.ranks, 2);
    QCOMPARE(store::listProbes(*m_workspace->database(), n.name).size(), std::size_t(2));
    // The status line and the Plan form say the same figures.
    const QLocale locale;
    QVERIFY2(status.contains(locale.toString(n.busGBps, 'f', 2))
                 && status.contains(locale.toString(n.interNodeGBps, 'f', 1)),
             qPrintable(status));
    PlanForm form;
    form.setMeasuredNetworks(networks);
    auto* combo = form.findChild<QComboBox*>(QStringLiteral("interNodeCombo"));
    auto* spin = form.findChild<QDoubleSpinBox*>(QStringLiteral("interNodeSpin"));
    QVERIFY(combo && spin);
    const int measured = combo->findData(QStringLiteral("measured:box-a+box-b"));
    QVERIFY(measured >= 0);
    combo->setCurrentIndex(measured);
    QCOMPARE(spin->value(), n.interNodeGBps); // already to the 0.1 GB/s the spin box holds
    QVERIFY(combo->currentText().contains(locale.toString(spin->value(), 'f', spin->decimals())));
    QVERIFY(!spin->isEnabled());
#endif
}

SHARDWISE_GUI_TEST_MAIN(TestNodesPage)
#include "test_nodes_page.moc"
