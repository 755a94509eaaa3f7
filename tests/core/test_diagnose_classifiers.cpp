// Each log classifier on each message variant it must accept (PyTorch 1.13 to 2.x wordings, NCCL,
// torchrun, argparse, OpenSSH, the kernel), and the timestamp formats those tools write.
#include "shardwise/diagnose/log_classifier.hpp"
#include "shardwise/diagnose/log_time.hpp"

#include <QtTest>

using namespace shardwise::diagnose;

namespace {
double utc(int y, unsigned mo, unsigned d, int h, int mi, double s)
{
    return static_cast<double>(daysFromCivil(y, mo, d)) * 86400.0 + h * 3600.0 + mi * 60.0 + s;
}
} // namespace

class TestDiagnoseClassifiers : public QObject {
    Q_OBJECT

private slots:
    void lineIsClassified_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<bool>("symptom");
        QTest::addColumn<int>("rank");
        QTest::addColumn<QString>("facts"); // JSON object that must be a subset of the finding's facts

        QTest::newRow("oom: torch.OutOfMemoryError, PYTORCH_CUDA_ALLOC_CONF hint")
            << QStringLiteral(
                   "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                   "of 79.15 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this process has 77.90 GiB "
                   "memory in use. Of the allocated memory 70.10 GiB is allocated by PyTorch, and 6.30 GiB is reserved "
                   "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
            << "oom" << false << -1
            << R"({"tried_to_allocate_bytes":2147483648,"reserved_unallocated_bytes":6764573491,"free_bytes":1288490189,"allocated_by_pytorch_bytes":75269301862,"process_in_use_bytes":83644488090,"gpu":0,"alloc_conf_variable":"PYTORCH_CUDA_ALLOC_CONF","exception":"torch.OutOfMemoryError"})";
        QTest::newRow("oom: newer PYTORCH_ALLOC_CONF hint, rank prefix")
            << QStringLiteral("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU "
                              "3 has a total capacity of 23.55 GiB of which 100.00 MiB is free. Of the allocated "
                              "memory 20.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but "
                              "unallocated. If reserved but unallocated memory is large try setting "
                              "PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
            << "oom" << false << 3
            << R"({"tried_to_allocate_bytes":536870912,"reserved_unallocated_bytes":1073741824,"gpu":3,"alloc_conf_variable":"PYTORCH_ALLOC_CONF"})";
        QTest::newRow("oom: torch.cuda.OutOfMemoryError, old wording with reserved total")
            << QStringLiteral(
                   "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 79.15 GiB "
                   "total capacity; 70.00 GiB already allocated; 5.00 MiB free; 76.00 GiB reserved in total by "
                   "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
                   "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
            << "oom" << false << -1
            << R"({"tried_to_allocate_bytes":20971520,"reserved_by_pytorch_bytes":81604378624,"allocated_by_pytorch_bytes":75161927680,"reserved_unallocated_bytes":6442450944,"free_bytes":5242880,"exception":"torch.cuda.OutOfMemoryError","alloc_conf_variable":"PYTORCH_CUDA_ALLOC_CONF"})";
        QTest::newRow("oom: RuntimeError wording of PyTorch < 1.13")
            << QStringLiteral(
                   "RuntimeError: CUDA out of memory. Tried to allocate 64.00 MiB (GPU 1; 15.78 GiB total capacity; "
                   "14.53 GiB already allocated; 37.44 MiB free; 14.73 GiB reserved in total by PyTorch)")
            << "oom" << false << -1 << R"({"exception":"RuntimeError","gpu":1,"tried_to_allocate_bytes":67108864})";
        QTest::newRow("oom: CUDA runtime error text") << QStringLiteral("RuntimeError: CUDA error: out of memory")
                                                      << "oom" << false << -1 << R"({"device":"cuda"})";
        QTest::newRow("oom: host allocator") << QStringLiteral(
            "RuntimeError: [enforce fail at alloc_cpu.cpp:83] data. DefaultCPUAllocator: can't allocate memory: you "
            "tried to allocate 34359738368 bytes. Error code 12 (Cannot allocate memory)")
                                             << "oom" << false << -1 << R"({"device":"cpu"})";
        QTest::newRow("watchdog: old prefix")
            << QStringLiteral("[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: "
                              "WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
                              "for 600006 milliseconds before timing out.")
            << "watchdog_timeout" << true << 1
            << R"({"seq_num":12,"op_type":"ALLREDUCE","numel_in":1,"numel_out":1,"timeout_ms":600000,"ran_for_ms":600006,"backend":"nccl"})";
        QTest::newRow("watchdog: PyTorch 1.13 without numel")
            << QStringLiteral("[E ProcessGroupNCCL.cpp:737] [Rank 0] Watchdog caught collective operation timeout: "
                              "WorkNCCL(SeqNum=55, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1806459 milliseconds "
                              "before timing out.")
            << "watchdog_timeout" << true << 0
            << R"({"seq_num":55,"op_type":"BROADCAST","timeout_ms":1800000,"ran_for_ms":1806459})";
        QTest::newRow("watchdog: new prefix with PG ID and GUID")
            << QStringLiteral(
                   "[rank1]:[E1112 09:45:30.587598245 ProcessGroupNCCL.cpp:616] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
                   "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, "
                   "NumelOut=1, Timeout(ms)=600000) ran for 600054 milliseconds before timing out.")
            << "watchdog_timeout" << true << 1 << R"({"seq_num":7,"ran_for_ms":600054})";
        QTest::newRow("watchdog: follow-up line")
            << QStringLiteral("[rank2]:[E514 10:12:14.403001 4123 ProcessGroupNCCL.cpp:621] [Rank 2] Some NCCL "
                              "operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
                              "subsequent GPU operations might run on corrupted/incomplete data.")
            << "watchdog_timeout" << true << 2 << R"({"backend":"nccl"})";
        QTest::newRow("watchdog: gloo") << QStringLiteral(
            "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms "
            "for recv operation to complete")
                                        << "watchdog_timeout" << true << -1
                                        << R"({"backend":"gloo","timeout_ms":1800000})";
        QTest::newRow("launcher: --local-rank injected")
            << QStringLiteral("finetune.py: error: unrecognized arguments: --local-rank=0") << "launcher_arguments"
            << false << -1
            << R"({"program":"finetune.py","arguments":"--local-rank=0","injected_local_rank":true,"rejected_use_env":false})";
        QTest::newRow("launcher: --local_rank injected (PyTorch < 2.0, DeepSpeed)")
            << QStringLiteral("train.py: error: unrecognized arguments: --local_rank=3") << "launcher_arguments"
            << false << -1 << R"({"injected_local_rank":true})";
        QTest::newRow("launcher: torchrun rejects --use_env")
            << QStringLiteral("torchrun: error: unrecognized arguments: --use_env") << "launcher_arguments" << false
            << -1 << R"({"program":"torchrun","rejected_use_env":true,"injected_local_rank":false})";
        QTest::newRow("nccl: unhandled system error")
            << QStringLiteral("torch.distributed.DistBackendError: NCCL error in: "
                              "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled system error (run "
                              "with NCCL_DEBUG=INFO for details), NCCL version 2.18.1")
            << "communication" << false << -1 << R"({"nccl_error":"unhandled system error","nccl_version":"2.18.1"})";
        QTest::newRow("nccl: ncclSystemError line") << QStringLiteral(
            "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ")
                                                    << "communication" << false << -1
                                                    << R"({"nccl_result":"ncclSystemError"})";
        QTest::newRow("nccl: remote process exited") << QStringLiteral(
            "RuntimeError: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5")
                                                     << "communication" << true << -1 << R"({"nccl_version":"2.20.5"})";
        QTest::newRow("nccl: ncclRemoteError") << QStringLiteral(
            "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
                                               << "communication" << true << -1
                                               << R"({"nccl_result":"ncclRemoteError"})";
        QTest::newRow("nccl: WARN connect failed at bootstrap")
            << QStringLiteral("node-a:2101:2180 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to "
                              "10.128.0.7<53417> failed : Software caused connection abort")
            << "communication" << false << -1 << R"({"backend":"nccl"})";
        QTest::newRow("nccl: relayed by the watchdog thread")
            << QStringLiteral("[rank0]:[E514 10:05:02.118223 3300 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank "
                              "0] Process group watchdog thread terminated with exception: NCCL error: remote process "
                              "exited or there was a network error, NCCL version 2.20.5")
            << "communication" << true << 0 << R"({"nccl_version":"2.20.5"})";
        QTest::newRow("peer: gloo connection closed by peer")
            << QStringLiteral("RuntimeError: Connection closed by peer [10.0.0.2]:21442") << "communication" << true
            << -1 << "{}";
        QTest::newRow("peer: connection reset") << QStringLiteral(
            "RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value "
            "store by key '0', but store->get('0') got error: Connection reset by peer")
                                                << "communication" << true << -1 << "{}";
        QTest::newRow("rendezvous: store timeout") << QStringLiteral(
            "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.")
                                                   << "communication" << false << -1 << R"({"phase":"rendezvous"})";
        QTest::newRow("lost: dispatcher SSH connection lost") << QStringLiteral(
            "2024-05-14T10:04:27Z shardwise: node gpu-b: SSH connection lost: Socket error: Connection reset by peer")
                                                              << "lost_rank" << false << -1 << R"({"ssh":true})";
        QTest::newRow("lost: OpenSSH closed by remote host")
            << QStringLiteral("Connection to gpu-b.internal closed by remote host.") << "lost_rank" << false << -1
            << R"({"ssh":true})";
        QTest::newRow("lost: OpenSSH broken pipe") << QStringLiteral("client_loop: send disconnect: Broken pipe")
                                                   << "lost_rank" << false << -1 << R"({"ssh":true})";
        QTest::newRow("lost: kernel OOM killer")
            << QStringLiteral("May 14 10:04:51 node-b kernel: Out of memory: Killed process 51231 (python3) "
                              "total-vm:412345678kB, anon-rss:198765432kB")
            << "lost_rank" << false << -1 << R"({"host_oom_killer":true})";
        QTest::newRow("lost: shell reports Killed")
            << QStringLiteral("Killed") << "lost_rank" << false << -1 << R"({"signal":9})";
        QTest::newRow("lost: torchrun agent got SIGTERM") << QStringLiteral(
            "torch.distributed.elastic.multiprocessing.api.SignalException: Process 14521 got signal: 15")
                                                          << "lost_rank" << false << -1 << R"({"signal":15})";
        QTest::newRow("internal: illegal memory access")
            << QStringLiteral("RuntimeError: CUDA error: an illegal memory access was encountered") << "internal"
            << false << -1 << R"({"cuda_error":"an illegal memory access was encountered"})";
        QTest::newRow("internal: python exception")
            << QStringLiteral("ValueError: too many values to unpack (expected 2)") << "internal" << false << -1
            << R"({"exception":"ValueError"})";
    }

    void lineIsClassified()
    {
        QFETCH(QString, line);
        QFETCH(QString, kind);
        QFETCH(bool, symptom);
        QFETCH(int, rank);
        QFETCH(QString, facts);
        const auto f = classifyLine(line.toStdString(), 2024);
        QVERIFY2(f.has_value(), qPrintable(line));
        QCOMPARE(QString::fromStdString(std::string(failureKindId(f->kind))), kind);
        QCOMPARE(f->isSymptom, symptom);
        QCOMPARE(f->rank, rank);
        const auto want = nlohmann::json::parse(facts.toStdString());
        for (const auto& [key, value] : want.items()) {
            QVERIFY2(f->facts.contains(key),
                     qPrintable(QStringLiteral("missing fact ") + QString::fromStdString(key) + QStringLiteral(" in ")
                                + QString::fromStdString(f->facts.dump())));
            QCOMPARE(QString::fromStdString(f->facts[key].dump()), QString::fromStdString(value.dump()));
        }
    }

    void ordinaryLinesAreNotFailures_data()
    {
        QTest::addColumn<QString>("line");
        QTest::newRow("python logging") << QStringLiteral(
            "2024-05-14 10:00:41,902 - INFO - train - step 0 loss 11.9312");
        QTest::newRow("nccl info") << QStringLiteral(
            "node-a:2101:2180 [0] NCCL INFO comm 0x5581c2a0 rank 0 nranks 2 cudaDev 0 busId 8000 - Init COMPLETE");
        QTest::newRow("nccl plugin warning") << QStringLiteral(
            "node-a:2101:2180 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No "
            "such file or directory No plugin found (libnccl-net.so), using internal implementation");
        QTest::newRow("torchrun sigterm to a sibling")
            << QStringLiteral("W0514 10:02:12.908000 140052 torch/distributed/elastic/multiprocessing/api.py:858] "
                              "Sending process 48212 closing signal SIGTERM");
        QTest::newRow("traceback header") << QStringLiteral("Traceback (most recent call last):");
        QTest::newRow("deprecation text")
            << QStringLiteral("If your script expects `--local-rank` argument to be set, please");
        QTest::newRow("empty") << QString();
    }

    void ordinaryLinesAreNotFailures()
    {
        QFETCH(QString, line);
        const auto f = classifyLine(line.toStdString(), 2024);
        QVERIFY2(!f.has_value(), f ? f->message.c_str() : "");
    }

    void torchrunSummaryNamesTheFailedRankAndHost()
    {
        const std::vector<std::string> log {
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "Root Cause (first observed failure):",
            "[0]:",
            "  time      : 2024-05-14_10:04:58",
            "  host      : node-b",
            "  rank      : 3 (local_rank: 1)",
            "  exitcode  : -9 (pid: 51231)",
            "  error_file: <N/A>",
            "  traceback : Signal 9 (SIGKILL) received by PID 51231",
            "============================================================",
        };
        const auto findings = classifyLog(log, 2024);
        QCOMPARE(findings.size(), std::size_t(1));
        const auto& f = findings.front();
        QCOMPARE(f.kind, FailureKind::LostRank);
        QVERIFY(!f.isSymptom);
        QCOMPARE(f.rank, 3);
        QCOMPARE(f.node, std::string("node-b"));
        QCOMPARE(f.facts["signal"].get<int>(), 9);
        QVERIFY(f.facts.value("torchrun_first_observed", false));
        QVERIFY(f.time.has_value());
        QCOMPARE(f.time->seconds, utc(2024, 5, 14, 10, 4, 58));
    }

    void torchrunSummaryWithSigtermIsASymptom()
    {
        const std::vector<std::string> log { "[1]:", "  time      : 2024-05-14_10:05:00", "  host      : node-a",
                                             "  rank      : 1 (local_rank: 1)", "  exitcode  : -15 (pid: 4410)" };
        const auto findings = classifyLog(log, 2024);
        QCOMPARE(findings.size(), std::size_t(1));
        QCOMPARE(findings.front().kind, FailureKind::LostRank);
        QVERIFY(findings.front().isSymptom);
    }

    void timestampIsRead_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<double>("expected");
        QTest::addColumn<QString>("text");
        QTest::newRow("python logging") << QStringLiteral("2024-05-14 10:02:11,377 - INFO - x")
                                        << utc(2024, 5, 14, 10, 2, 11.377) << QStringLiteral("2024-05-14 10:02:11,377");
        QTest::newRow("bracketed python logging")
            << QStringLiteral("[2023-03-02 16:20:11,004] INFO train.py:88 -- x") << utc(2023, 3, 2, 16, 20, 11.004)
            << QStringLiteral("2023-03-02 16:20:11,004");
        QTest::newRow("iso utc") << QStringLiteral("2024-05-14T10:04:27Z shardwise: node gpu-b")
                                 << utc(2024, 5, 14, 10, 4, 27) << QStringLiteral("2024-05-14T10:04:27Z");
        QTest::newRow("iso with zone east of utc")
            << QStringLiteral("2024-05-14T12:04:27.5+02:00 x") << utc(2024, 5, 14, 10, 4, 27.5)
            << QStringLiteral("2024-05-14T12:04:27.5+02:00");
        QTest::newRow("torchrun summary") << QStringLiteral("  time      : 2024-05-14_10:12:40")
                                          << utc(2024, 5, 14, 10, 12, 40) << QStringLiteral("2024-05-14_10:12:40");
        QTest::newRow("glog with rank prefix, month without zero")
            << QStringLiteral("[rank1]:[E514 10:12:33.123456 1234 ProcessGroupNCCL.cpp:616] x")
            << utc(2024, 5, 14, 10, 12, 33.123456) << QStringLiteral("E514 10:12:33.123456");
        QTest::newRow("glog four digits, nanoseconds")
            << QStringLiteral("[E1112 09:45:30.587598245 ProcessGroupNCCL.cpp:616] x")
            << utc(2024, 11, 12, 9, 45, 30.587598245) << QStringLiteral("E1112 09:45:30.587598245");
        QTest::newRow("torchrun glog") << QStringLiteral(
            "W0514 10:02:12.908000 140052 torch/distributed/elastic/multiprocessing/api.py:858] x")
                                       << utc(2024, 5, 14, 10, 2, 12.908) << QStringLiteral("W0514 10:02:12.908000");
        QTest::newRow("syslog") << QStringLiteral("May 14 10:04:51 node-b kernel: Out of memory")
                                << utc(2024, 5, 14, 10, 4, 51) << QStringLiteral("May 14 10:04:51");
    }

    void timestampIsRead()
    {
        QFETCH(QString, line);
        QFETCH(double, expected);
        QFETCH(QString, text);
        const auto t = parseLogTime(line.toStdString(), 2024);
        QVERIFY(t.has_value());
        QVERIFY2(std::abs(t->seconds - expected) < 1e-3, qPrintable(QString::number(t->seconds - expected)));
        QCOMPARE(QString::fromStdString(t->text), text);
    }

    void linesWithoutTimestampsHaveNone_data()
    {
        QTest::addColumn<QString>("line");
        QTest::newRow("old watchdog prefix") << QStringLiteral("[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught");
        QTest::newRow("nccl") << QStringLiteral("node-a:2101:2180 [0] NCCL INFO cudaDriverVersion 12040");
        QTest::newRow("impossible date") << QStringLiteral("2024-13-45 10:00:00 x");
        QTest::newRow("version number") << QStringLiteral("NCCL version 2.18.1+cuda12.1");
    }

    void linesWithoutTimestampsHaveNone()
    {
        QFETCH(QString, line);
        QVERIFY(!parseLogTime(line.toStdString(), 2024).has_value());
    }

    void byteSizesFollowPyTorchUnits_data()
    {
        QTest::addColumn<QString>("number");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<qint64>("bytes");
        QTest::newRow("GiB") << QStringLiteral("2.00") << QStringLiteral("GiB") << qint64(2147483648LL);
        QTest::newRow("MiB") << QStringLiteral("402.00") << QStringLiteral("MiB") << qint64(421527552LL);
        QTest::newRow("KiB") << QStringLiteral("1.5") << QStringLiteral("KiB") << qint64(1536);
        QTest::newRow("bytes") << QStringLiteral("34359738368") << QStringLiteral("bytes") << qint64(34359738368LL);
        QTest::newRow("unknown unit") << QStringLiteral("2") << QStringLiteral("GB") << qint64(-1);
        QTest::newRow("not a number") << QStringLiteral("two") << QStringLiteral("GiB") << qint64(-1);
    }

    void byteSizesFollowPyTorchUnits()
    {
        QFETCH(QString, number);
        QFETCH(QString, unit);
        QFETCH(qint64, bytes);
        const auto parsed = parseByteSize(number.toStdString(), unit.toStdString());
        QCOMPARE(parsed ? qint64(*parsed) : qint64(-1), bytes);
    }
};

QTEST_GUILESS_MAIN(TestDiagnoseClassifiers)
#include "test_diagnose_classifiers.moc"
