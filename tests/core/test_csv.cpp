// The one CSV writer (shardwise/spec/quote.hpp: csvField, csvText) that the store's run export, the
// CLI's compare --format csv and the GUI's exports all use: RFC 4180 quoting of commas, quotes and
// line breaks, the spreadsheet formula guard on text cells, and the guard undone on import. Each
// field written is read back by an RFC 4180 reader written here, independent of the writer.

#include "shardwise/spec/quote.hpp"

#include <QtTest>

#include <string>
#include <vector>

using namespace shardwise;

namespace {

// RFC 4180, section 2: fields separated by ',', records by CRLF (or LF); a field in double quotes may
// hold ',', CR, LF and '""' for one '"'.
std::vector<std::vector<std::string>> readRecords(const std::string& text)
{
    std::vector<std::vector<std::string>> records(1);
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            records.back().push_back(std::move(field));
            field.clear();
        } else if (c == '\n' || (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
            i += c == '\r' ? 1 : 0;
            records.back().push_back(std::move(field));
            field.clear();
            records.emplace_back();
        } else {
            field += c;
        }
    }
    records.pop_back(); // after the last line break
    return records;
}

QString shown(const std::string& s)
{
    return QString::fromStdString(s)
        .replace(QLatin1Char('\n'), QLatin1String("\\n"))
        .replace(QLatin1Char('\r'), QLatin1String("\\r"));
}

} // namespace

class TestCsv : public QObject {
    Q_OBJECT

private slots:
    void fieldsAreQuotedOnlyWhereTheyMustBe_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("written");
        QTest::newRow("plain") << QStringLiteral("H100 80GB") << QStringLiteral("H100 80GB");
        QTest::newRow("empty") << QString() << QString();
        QTest::newRow("number") << QStringLiteral("-1.5e-3") << QStringLiteral("-1.5e-3");
        QTest::newRow("comma") << QStringLiteral("zero1,tp2") << QStringLiteral("\"zero1,tp2\"");
        QTest::newRow("quote") << QStringLiteral("say \"hi\"") << QStringLiteral("\"say \"\"hi\"\"\"");
        QTest::newRow("only a quote") << QStringLiteral("\"") << QStringLiteral("\"\"\"\"");
        QTest::newRow("newline") << QStringLiteral("line one\nline two") << QStringLiteral("\"line one\nline two\"");
        QTest::newRow("carriage return") << QStringLiteral("a\rb") << QStringLiteral("\"a\rb\"");
        QTest::newRow("all of them") << QStringLiteral("a,\"b\"\r\nc") << QStringLiteral("\"a,\"\"b\"\"\r\nc\"");
        QTest::newRow("utf-8") << QStringLiteral("Grö\u00dfe, µs") << QStringLiteral("\"Grö\u00dfe, µs\"");
    }
    void fieldsAreQuotedOnlyWhereTheyMustBe()
    {
        QFETCH(QString, value);
        QFETCH(QString, written);
        const std::string v = value.toStdString();
        QCOMPARE(QString::fromStdString(csvField(v)), written);
        // Text that is no formula: csvText writes the same. (A number is written with csvField: as text
        // "-1.5e-3" would get the guard, which is why csvText is for text cells only.)
        if (!csvStartsLikeFormula(v))
            QCOMPARE(QString::fromStdString(csvText(v)), written);
        else
            QCOMPARE(QString::fromStdString(csvText(v)), QLatin1Char('\'') + written);
        // Read back by an RFC 4180 reader as one field of one record, byte for byte.
        const auto records = readRecords(csvField(v) + "," + csvField(v) + "\r\n");
        QVERIFY2(records.size() == 1 && records[0].size() == 2, qPrintable(shown(csvField(v))));
        QCOMPARE(records[0][0], v);
        QCOMPARE(records[0][1], v);
    }

    void textThatASpreadsheetWouldRunIsDefused_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("written");
        QTest::newRow("=") << QStringLiteral("=1+2") << QStringLiteral("'=1+2");
        QTest::newRow("+") << QStringLiteral("+1") << QStringLiteral("'+1");
        QTest::newRow("-") << QStringLiteral("-2+3") << QStringLiteral("'-2+3");
        QTest::newRow("@") << QStringLiteral("@SUM(A1:A2)") << QStringLiteral("'@SUM(A1:A2)");
        QTest::newRow("tab") << QStringLiteral("\t=1") << QStringLiteral("'\t=1");
        QTest::newRow("carriage return") << QStringLiteral("\r=1") << QStringLiteral("\"'\r=1\"");
        QTest::newRow("formula with quotes and commas")
            << QStringLiteral("=HYPERLINK(\"http://x\",\"y\")")
            << QStringLiteral("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
        QTest::newRow("= later in the text") << QStringLiteral("a=b") << QStringLiteral("a=b");
    }
    void textThatASpreadsheetWouldRunIsDefused()
    {
        QFETCH(QString, value);
        QFETCH(QString, written);
        const std::string v = value.toStdString();
        QCOMPARE(QString::fromStdString(csvText(v)), written);
        const auto records = readRecords(csvText(v) + "\n");
        QVERIFY(records.size() == 1 && records[0].size() == 1);
        QCOMPARE(records[0][0].front() == '\'', csvStartsLikeFormula(v));
        // Import takes the guard off again.
        QCOMPARE(csvWithoutFormulaGuard(records[0][0]), v);
    }

    void theGuardIsTakenOffOnlyWhereItWasPut()
    {
        QCOMPARE(csvWithoutFormulaGuard("'=1"), std::string("=1"));
        QCOMPARE(csvWithoutFormulaGuard("'hello"), std::string("'hello")); // an apostrophe of the text itself
        QCOMPARE(csvWithoutFormulaGuard("'"), std::string("'"));
        QCOMPARE(csvWithoutFormulaGuard("''=1"), std::string("''=1"));
        QVERIFY(!csvStartsLikeFormula(""));
        QVERIFY(!csvStartsLikeFormula("1-2"));
    }
};

QTEST_GUILESS_MAIN(TestCsv)
#include "test_csv.moc"
