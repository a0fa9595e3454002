package org.leasesync.store.h2;

import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.h2.api.ErrorCode;
import org.leasesync.lease.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Step 2 of {@link DatabaseFileCheck}: H2 opens the file read-only as a database and every stored
 * row is read, so that damage in the schema or in any row's page is found before the file is
 * opened for writing (which would let H2 "repair" it by falling back to an older state).
 *
 * <p>Stateless and thread-safe. Blocks on file I/O for as long as reading the whole file takes.
 */
final class StoredRowsCheck {

    private static final Logger log = LoggerFactory.getLogger(StoredRowsCheck.class);

    private StoredRowsCheck() {}

    /**
     * Reads every row of every table of {@code file}, and walks every secondary index, through H2
     * opened read-only on {@link ReadOnlyFilePath}.
     *
     * @return true when everything was read; false when another process opened the file meanwhile
     *     (it was not checked)
     * @throws StoreException naming the file when H2 found damaged data, the file cannot be read, or
     *     the heap is too small to read it (which says nothing about the file)
     */
    static boolean readEveryRow(Path file) {
        ReadOnlyFilePath.register();
        String name = file.toString();
        String base = name.substring(0, name.length() - ".mv.db".length());
        String url = "jdbc:h2:" + ReadOnlyFilePath.SCHEME + ":" + base
                + ";ACCESS_MODE_DATA=r;TRACE_LEVEL_FILE=0;TRACE_LEVEL_SYSTEM_OUT=0;DB_CLOSE_ON_EXIT=FALSE"
                // rows streamed as they are read, never a whole table's result held in memory: with the app's
                // 256 MB heap a read-only H2 ran out of memory on 1,000,000 records
                + ";LAZY_QUERY_EXECUTION=TRUE";
        try (Connection c = DriverManager.getConnection(url, "sa", "");
                Statement st = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.TABLES "
                    + "WHERE TABLE_TYPE = 'BASE TABLE'")) {
                while (rs.next()) {
                    tables.add('"' + rs.getString(1) + "\".\"" + rs.getString(2) + '"');
                }
            }
            for (String table : tables) {
                readAll(st, "SELECT * FROM " + table);
            }
            for (String indexScan : indexScans(st)) {
                readAll(st, indexScan);
            }
            return true;
        } catch (SQLException e) {
            if (e.getErrorCode() == ErrorCode.DATABASE_ALREADY_OPEN_1) { // another process opened it meanwhile
                return false;
            }
            if (e.getErrorCode() == ErrorCode.OUT_OF_MEMORY) { // says nothing about the file
                log.info("read-only check of {} ran out of memory", file, e);
                throw new StoreException(
                        "could not check the local database " + file + ": not enough memory ("
                                + Runtime.getRuntime().maxMemory() / (1024 * 1024)
                                + " MB heap) to read it. It was not opened and "
                                + "nothing was changed; start leasesync with a larger heap (-Xmx) once.",
                        e);
            }
            if (rootCause(e) instanceof AccessDeniedException ade) {
                throw DatabaseFileCheck.unreadable(file, ade);
            }
            log.info("read-only check of {} failed", file, e);
            throw DatabaseFileCheck.damaged(file, "H2 found damaged data while reading the stored rows");
        }
    }

    /** Reads every value of every row (large values in full). */
    private static void readAll(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= columns; i++) {
                    rs.getString(i);
                }
            }
        }
    }

    /** A query per secondary index that walks it (ordered by its columns, restricted to it). */
    private static List<String> indexScans(Statement st) throws SQLException {
        Map<String, List<String>> columns = new LinkedHashMap<>();
        Map<String, String> tableOf = new HashMap<>();
        try (ResultSet rs = st.executeQuery("SELECT i.TABLE_SCHEMA, i.TABLE_NAME, i.INDEX_NAME, c.COLUMN_NAME "
                + "FROM INFORMATION_SCHEMA.INDEXES i JOIN INFORMATION_SCHEMA.INDEX_COLUMNS c "
                + "ON c.INDEX_SCHEMA = i.INDEX_SCHEMA AND c.INDEX_NAME = i.INDEX_NAME "
                + "WHERE i.INDEX_TYPE_NAME <> 'PRIMARY KEY' ORDER BY i.INDEX_NAME, c.ORDINAL_POSITION")) {
            while (rs.next()) {
                String index = '"' + rs.getString(1) + "\".\"" + rs.getString(3) + '"';
                tableOf.put(index, '"' + rs.getString(1) + "\".\"" + rs.getString(2) + '"');
                columns.computeIfAbsent(index, k -> new ArrayList<>()).add('"' + rs.getString(4) + '"');
            }
        }
        List<String> scans = new ArrayList<>();
        columns.forEach((index, cols) -> {
            String indexName = index.substring(index.indexOf("\".\"") + 2);
            scans.add("SELECT " + String.join(", ", cols) + " FROM " + tableOf.get(index) + " USE INDEX (" + indexName
                    + ") ORDER BY " + String.join(", ", cols));
        });
        return scans;
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }
}
