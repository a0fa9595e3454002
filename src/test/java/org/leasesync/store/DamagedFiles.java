package org.leasesync.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStore;

/** Ways to damage a local database file, for tests. */
public enum DamagedFiles {

    /** Cut to half its length, as a copy or a sync tool that stopped half way would leave it. */
    TRUNCATED_TO_HALF {
        @Override
        public void damage(Path file) throws IOException {
            byte[] b = Files.readAllBytes(file);
            Files.write(file, Arrays.copyOf(b, b.length / 2));
        }
    },

    /**
     * 4 KiB of the live data in the middle of the file overwritten (the middle block of the chunk
     * holding the most live pages), as a disk or file system error would. Bytes in space H2 no
     * longer uses would be harmless, so the damage is aimed at live data.
     */
    OVERWRITTEN_IN_THE_MIDDLE {
        @Override
        public void damage(Path file) throws IOException {
            long block = middleBlockOfLiveData(file);
            byte[] b = Files.readAllBytes(file);
            Arrays.fill(b, (int) (block * 4096), (int) (block * 4096 + 4096), (byte) 0x5a);
            Files.write(file, b);
        }
    },

    /** Replaced by something that is not a database at all. */
    REPLACED_WITH_GARBAGE {
        @Override
        public void damage(Path file) throws IOException {
            Files.write(
                    file,
                    "this is not an H2 database file, just text\n".repeat(300).getBytes());
        }
    };

    public abstract void damage(Path file) throws IOException;

    /** The SHA-256 of a file, to prove it was left exactly as it was. */
    public static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static long middleBlockOfLiveData(Path file) {
        long bestBlock = -1;
        long bestLen = 0;
        long mostLive = -1;
        try (MVStore store =
                new MVStore.Builder().fileName(file.toString()).readOnly().open()) {
            for (Map.Entry<String, String> e : store.getLayoutMap().entrySet()) {
                if (!e.getKey().startsWith("chunk.")) {
                    continue;
                }
                Map<String, String> chunk = DataUtils.parseMap(e.getValue());
                // H2 writes livePages only when some pages are dead; a chunk without it is wholly live
                long live = Long.parseLong(chunk.getOrDefault("livePages", chunk.getOrDefault("pages", "0")), 16);
                if (live > mostLive) {
                    mostLive = live;
                    bestBlock = Long.parseLong(chunk.get("block"), 16);
                    bestLen = Long.parseLong(chunk.get("len"), 16);
                }
            }
        }
        if (bestBlock < 0 || mostLive <= 0) {
            throw new IllegalStateException("no live chunk found in " + file);
        }
        return bestBlock + bestLen / 2;
    }
}
