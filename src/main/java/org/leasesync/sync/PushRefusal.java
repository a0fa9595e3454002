package org.leasesync.sync;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a push the server answered with an error status says about its batch, and what the push
 * stage does about it. Per the protocol a refused push applied and stored nothing (docs/protocol.md
 * §5.3), so the batch may be split and its entries sent again under new idempotency keys.
 *
 * <table>
 *   <caption>Refusals of a push</caption>
 *   <tr><th>answer</th><th>meaning</th><th>{@link Verdict}</th></tr>
 *   <tr><td>409 {@code stale_fencing_token}</td><td>a newer run of the key reached the server</td><td>LEASE_LOST</td></tr>
 *   <tr><td>409 {@code idempotency_key_in_use}</td><td>the first request with the key still executes</td><td>QUERY</td></tr>
 *   <tr><td>422 {@code idempotency_key_reused}</td><td>the key was used for another body: local push state inconsistent</td><td>NEEDS_ATTENTION</td></tr>
 *   <tr><td>400 naming {@code changes[i]}</td><td>entry i is malformed</td><td>ENTRY (i)</td></tr>
 *   <tr><td>422 naming {@code changes[i]}</td><td>entry i fails the server's validation</td><td>ENTRY (i)</td></tr>
 *   <tr><td>413 (any code, also a proxy's)</td><td>the body is too large</td><td>SPLIT</td></tr>
 *   <tr><td>422, any other code</td><td>an entry fails the server's validation; which one is not said</td><td>SPLIT</td></tr>
 *   <tr><td>400 {@code bad_request} (or no code) not naming an entry</td><td>the body could not be parsed or
 *       checked as a whole (e.g. nested deeper than the server's parser allows): an entry is to blame, which
 *       one is not said</td><td>SPLIT</td></tr>
 *   <tr><td>401 (any code)</td><td>the session ended: nothing was applied; the run ends signed out
 *       ({@link RemoteException#isSignedOut()}), the batch stays recorded and is queried after the next
 *       sign-in</td><td>FAIL</td></tr>
 *   <tr><td>400 with another code ({@code idempotency_key_required}, ...), 403, 404, 405, 408, 429, 5xx,
 *       anything else</td>
 *       <td>about the request, the account or the server, not an entry: retrying later, or the user,
 *       may fix it</td><td>FAIL</td></tr>
 * </table>
 * ENTRY sets that entry aside as rejected; SPLIT sends the two halves of the batch separately (new
 * keys), and an entry refused when sent alone is set aside. An entry is never set aside for a refusal
 * that is not its own. Immutable.
 *
 * @param verdict what to do
 * @param entryIndex for {@link Verdict#ENTRY}: the index in the batch; else -1
 */
public record PushRefusal(Verdict verdict, int entryIndex) {

    /** What the push stage does with a refused batch. */
    public enum Verdict {
        /**
         * The server has seen a newer fencing token: another run took the key over, or this device's
         * lease table went back in time ({@link NewerFencingTokenException}): stop.
         */
        LEASE_LOST,
        /** Ask the server about the key, then go on (the request is still executing there). */
        QUERY,
        /** The local push state is inconsistent: the run ends as needs attention. */
        NEEDS_ATTENTION,
        /** One named entry is refused for good: set it aside. */
        ENTRY,
        /** An entry of the batch is refused for good, or the batch is too large: split it. */
        SPLIT,
        /** Not an entry's fault: the run fails (and is retried later). */
        FAIL
    }

    private static final Pattern NAMED_ENTRY = Pattern.compile("\\bchanges\\[(\\d{1,4})]");

    /** Classifies a refusal of a batch of {@code batchSize} entries. */
    public static PushRefusal of(RemoteException e, int batchSize) {
        if (e.kind() != RemoteException.Kind.HTTP) {
            return new PushRefusal(Verdict.FAIL, -1);
        }
        int status = e.status();
        String code = e.code();
        if (status == 409) {
            return new PushRefusal(
                    switch (code) {
                        case "stale_fencing_token" -> Verdict.LEASE_LOST;
                        case "idempotency_key_in_use" -> Verdict.QUERY;
                        default -> Verdict.FAIL;
                    },
                    -1);
        }
        if (status == 422 && code.equals("idempotency_key_reused")) {
            return new PushRefusal(Verdict.NEEDS_ATTENTION, -1);
        }
        if (status == 413) {
            return new PushRefusal(Verdict.SPLIT, -1);
        }
        if (status == 400 || status == 422) {
            Matcher m = NAMED_ENTRY.matcher(e.serverMessage());
            if (m.find() && (status == 422 || code.isEmpty() || code.equals("bad_request"))) {
                int index = Integer.parseInt(m.group(1));
                if (index < batchSize) {
                    return new PushRefusal(Verdict.ENTRY, index);
                }
            }
            // A body the server could not parse or check names no entry, yet one of its entries is to
            // blame (the client sends nothing else in it): split, down to the entry refused alone.
            boolean aboutTheBody = status == 422 || code.isEmpty() || code.equals("bad_request");
            return new PushRefusal(aboutTheBody ? Verdict.SPLIT : Verdict.FAIL, -1);
        }
        return new PushRefusal(Verdict.FAIL, -1);
    }
}
