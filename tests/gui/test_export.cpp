// The exporter writes valid PNG, SVG and PDF files with the caption, and tables as CSV and Markdown.
#include "gui_test_main.hpp"

#include "charts/chart_panel.hpp"
#include "export/chart_exporter.hpp"
#include "export/comparison_caption.hpp"
#include "export/table_exporter.hpp"
#include "models/run_table_model.hpp"

#include <QFile>
#include <QImage>
#include <QStandardItemModel>
#include <QSvgRenderer>
#include <QTemporaryDir>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

QList<RunRecord> twoRuns()
{
    RunRecord ok;
    ok.id = 7;
    ok.model = QStringLiteral("Qwen2.5 3B");
    ok.hardware = QStringLiteral("4 × NVIDIA L4 (PCIe)");
    ok.node = QStringLiteral("gpu-box");
    ok.strategy = Strategy::Zero3;
    ok.tokensPerS = 2100;
    ok.peakAllocatedGiB = 17.5;
    ok.peakReservedGiB = 19.0;
    ok.capacityGiB = 22.5;
    ok.ncclShare = 0.31;
    ok.predictedTokensPerS = 2400;
    ok.warmupSteps = 5;
    ok.timedSteps = 15;
    ok.versions = QStringLiteral("LibTorch 2.11.0, CUDA 13.0, NCCL 2.27.3");
    RunRecord oom = ok;
    oom.id = 8;
    oom.strategy = Strategy::Zero2;
    oom.outcome = RunOutcome::OutOfMemory;
    oom.tokensPerS = 0;
    oom.peakAllocatedGiB = 21.9;
    oom.peakReservedGiB = 22.4;
    return {ok, oom};
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void chartExportWritesAValidFile_data()
    {
        QTest::addColumn<QString>("suffix");
        QTest::newRow("png") << QStringLiteral("png");
        QTest::newRow("svg") << QStringLiteral("svg");
        QTest::newRow("pdf") << QStringLiteral("pdf");
    }
    void chartExportWritesAValidFile()
    {
        QFETCH(QString, suffix);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ChartPanel panel;
        panel.resize(900, 600);
        panel.setRuns(twoRuns());
        const ExportCaption caption = comparisonCaption(panel.runs());
        const QString path = dir.filePath(QStringLiteral("chart.") + suffix);
        const ExportResult result = ChartExporter::exportWidget(panel, path, caption);
        QVERIFY2(result.ok, qPrintable(result.error));
        const QByteArray bytes = readAll(path);
        QVERIFY(bytes.size() > 1000);
        if (suffix == QLatin1String("png")) {
            QImage image;
            QVERIFY(image.load(path, "PNG"));
            // Twice the widget's pixels, plus the caption's height under it.
            QCOMPARE(image.width(), 1800);
            QVERIFY(image.height() > 1200);
        } else if (suffix == QLatin1String("svg")) {
            QSvgRenderer renderer(path);
            QVERIFY(renderer.isValid());
            QVERIFY(bytes.contains("<title>"));
            QVERIFY(bytes.contains(caption.title.toHtmlEscaped().toUtf8()));
            QVERIFY(bytes.contains("<desc>"));
        } else {
            QVERIFY(bytes.startsWith("%PDF-"));
            QVERIFY(bytes.trimmed().endsWith("%%EOF"));
            QVERIFY(bytes.contains("/Type /Page"));
        }
    }

    void captionStatesWhatWasMeasured()
    {
        const ExportCaption caption = comparisonCaption(twoRuns());
        QVERIFY(caption.title.contains(QStringLiteral("Qwen2.5 3B")));
        QVERIFY(caption.title.contains(QStringLiteral("NVIDIA L4")));
        QVERIFY(caption.description.contains(QStringLiteral("LibTorch 2.11.0")));
        QVERIFY(caption.description.contains(QStringLiteral("Warm-up steps: 5; timed steps: 15")));
        QVERIFY(caption.description.contains(QStringLiteral("#8 out of memory")));
    }

    void unknownFormatIsRefusedWithItsName()
    {
        QTemporaryDir dir;
        ChartPanel panel;
        panel.resize(400, 300);
        const ExportResult chart = ChartExporter::exportWidget(panel, dir.filePath(QStringLiteral("chart.gif")), {});
        QVERIFY(!chart.ok);
        QVERIFY(chart.error.contains(QStringLiteral("gif")));
        QVERIFY(chart.error.contains(QStringLiteral("png")));
        RunTableModel model;
        const ExportResult table = TableExporter::exportModel(model, dir.filePath(QStringLiteral("table.xlsx")), {});
        QVERIFY(!table.ok);
        QVERIFY(table.error.contains(QStringLiteral("xlsx")));
    }

    void csvQuotesFieldsAndCarriesTheCaption()
    {
        QStandardItemModel model(2, 2);
        model.setHorizontalHeaderLabels({QStringLiteral("name"), QStringLiteral("note")});
        model.setItem(0, 0, new QStandardItem(QStringLiteral("zero3")));
        model.setItem(0, 1, new QStandardItem(QStringLiteral("said \"hi\", twice")));
        model.setItem(1, 0, new QStandardItem(QStringLiteral("fsdp2")));
        model.setItem(1, 1, new QStandardItem(QStringLiteral("plain")));
        const QString csv = TableExporter::toCsv(model, {QStringLiteral("Title"), QStringLiteral("line one\nline two")});
        QCOMPARE(csv, QStringLiteral("# Title\r\n# line one\r\n# line two\r\nname,note\r\nzero3,\"said \"\"hi\"\", twice\"\r\nfsdp2,plain\r\n"));
    }

    void markdownEscapesPipesAndEndsWithTheCaption()
    {
        QStandardItemModel model(1, 2);
        model.setHorizontalHeaderLabels({QStringLiteral("a"), QStringLiteral("b")});
        model.setItem(0, 0, new QStandardItem(QStringLiteral("x|y")));
        model.setItem(0, 1, new QStandardItem(QStringLiteral("z")));
        const QString md = TableExporter::toMarkdown(model, {QStringLiteral("T"), QStringLiteral("D")});
        QCOMPARE(md, QStringLiteral("| a | b |\n|---|---|\n| x\\|y | z |\n\n*T* — D\n"));
    }

    void runTableExportsEveryRunWithItsOutcome()
    {
        QTemporaryDir dir;
        RunTableModel model;
        model.setRuns(twoRuns());
        const QString path = dir.filePath(QStringLiteral("runs.csv"));
        const ExportResult result = TableExporter::exportModel(model, path, comparisonCaption(model.runs()));
        QVERIFY2(result.ok, qPrintable(result.error));
        const QString text = QString::fromUtf8(readAll(path));
        const QStringList rows = text.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        int dataRows = 0;
        for (const QString& row : rows)
            if (row.startsWith(QLatin1Char('#')) && row.size() > 1 && row.at(1).isDigit())
                ++dataRows;
        QCOMPARE(dataRows, 2);
        QVERIFY(text.contains(QStringLiteral("out of memory")));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestExport)
#include "test_export.moc"
