package org.leasesync.store;

import java.sql.SQLException;

/**
 * The few places where H2 and PostgreSQL differ, isolated here so that all other SQL stays
 * standard. Immutable.
 */
public enum SqlDialect {
    H2,
    POSTGRESQL;

    /** Detects the dialect from a JDBC URL. */
    public static SqlDialect fromJdbcUrl(String url) {
        return url != null && url.startsWith("jdbc:postgresql:") ? POSTGRESQL : H2;
    }

    /** True if the exception (or a cause) is a unique-key violation (SQLSTATE 23505 in both). */
    public boolean isDuplicateKey(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if ("23505".equals(x.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * True if the statement lost a race for a row: lock timeout, deadlock, serialization failure
     * or H2's "concurrent update". The caller treats it as contention, not a failure.
     */
    public boolean isContention(SQLException e) {
        String state = e.getSQLState();
        if (state == null) {
            return false;
        }
        return switch (this) {
            // 40001 deadlock/serialization, HYT00 lock timeout, 90131 concurrent update
            case H2 -> state.equals("40001") || state.equals("HYT00") || state.equals("90131");
            // 40001 serialization failure, 40P01 deadlock, 55P03 lock not available
            case POSTGRESQL -> state.equals("40001") || state.equals("40P01") || state.equals("55P03");
        };
    }

    /**
     * One statement that runs {@code update} and returns the updated rows' {@code columns}:
     * H2's data change delta table ({@code FINAL TABLE}), PostgreSQL's {@code RETURNING}.
     */
    public String returning(String update, String columns) {
        return switch (this) {
            case H2 -> "SELECT " + columns + " FROM FINAL TABLE (" + update + ")";
            case POSTGRESQL -> update + " RETURNING " + columns;
        };
    }

    /** The clause that locks the selected rows until commit. */
    public String forUpdate() {
        return " FOR UPDATE";
    }
}
