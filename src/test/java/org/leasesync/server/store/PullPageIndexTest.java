package org.leasesync.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

/**
 * A pull page walks {@code sync_records_by_seq} in order and stops after the page. With
 * {@code ORDER BY seq} alone H2 read every record after the cursor and sorted them, for each page —
 * a full pull cost O(records²).
 */
class PullPageIndexTest {

    @Test
    void aPageReadsOnlyItsOwnRowsFromTheIndexInOrder() throws Exception {
        try (ServerDatabase db = ServerDatabase.open(null);
                Connection c = db.connection()) {
            RecordStore records = new RecordStore(db);
            c.setAutoCommit(false);
            for (int i = 1; i <= 300; i++) {
                records.write(c, "alice", "backup", new RecordStore.StoredRecord("r" + i, 1, false, "{}", i, 0), false);
                records.write(c, "bob", "backup", new RecordStore.StoredRecord("r" + i, 1, false, "{}", i, 0), false);
            }
            c.commit();
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN ANALYZE " + RecordStore.CHANGES_SINCE_SQL)) {
                ps.setString(1, "alice");
                ps.setString(2, "backup");
                ps.setLong(3, 100);
                ps.setInt(4, 21);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertThat(rs.getString(1)).contains("index sorted").contains("scanCount: 22");
                }
            }
            RecordStore.Page page = records.changesSince(c, "alice", "backup", 100, 20);
            assertThat(page.records())
                    .extracting(RecordStore.StoredRecord::seq)
                    .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(101, 120)
                            .boxed()
                            .toList());
            assertThat(page.hasMore()).isTrue();
        }
    }
}
