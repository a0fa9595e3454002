package org.leasesync.sync;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The table of refused pushes (docs/reliability.md): which refusals are an entry's fault. */
class PushRefusalTest {

    static RemoteException http(int status, String code, String message) {
        return new RemoteException(RemoteException.Kind.HTTP, status, code, -1, "refused", "refused", message, null);
    }

    @ParameterizedTest(name = "{0} {1} ''{2}'' -> {3} {4}")
    @CsvSource(
            delimiter = '|',
            value = {
                "409 | stale_fencing_token     | a newer token was seen                    | LEASE_LOST      | -1",
                "409 | idempotency_key_in_use  | still executing                           | QUERY           | -1",
                "409 | conflict_of_some_kind   | ?                                         | FAIL            | -1",
                "422 | idempotency_key_reused  | changes[0] irrelevant                     | NEEDS_ATTENTION | -1",
                "413 | payload_too_large       | request body is larger than 5242880 bytes | SPLIT           | -1",
                "413 | ''                      | Request Entity Too Large                  | SPLIT           | -1",
                "400 | bad_request             | changes[2].baseVersion must be an integer | ENTRY           | 2",
                "400 | ''                      | changes[0].id must be a string            | ENTRY           | 0",
                "400 | bad_request             | changes[7].payload: index past the batch  | SPLIT           | -1",
                "400 | bad_request             | Sync-Run-Id must be printable ASCII       | SPLIT           | -1",
                "400 | bad_request             | malformed JSON: nesting depth exceeded    | SPLIT           | -1",
                "400 | ''                      | Bad Request                               | SPLIT           | -1",
                "400 | idempotency_key_required| changes[1] mentioned, but another code    | FAIL            | -1",
                "400 | invalid_cursor          | stale cursor                              | FAIL            | -1",
                "422 | validation_failed       | changes[1].payload.title is too long      | ENTRY           | 1",
                "422 | validation_failed       | invalid record                            | SPLIT           | -1",
                "401 | unauthorized            | changes[0]                                | FAIL            | -1",
                "403 | forbidden               | no                                        | FAIL            | -1",
                "404 | unknown_scope           | no                                        | FAIL            | -1",
                "429 | rate_limited            | slow down                                 | FAIL            | -1",
                "500 | internal_error          | changes[0] broke the server               | FAIL            | -1",
                "503 | unavailable             | down                                      | FAIL            | -1",
            })
    void classifiesEachRefusal(int status, String code, String message, PushRefusal.Verdict verdict, int index) {
        assertThat(PushRefusal.of(http(status, code, message), 3)).isEqualTo(new PushRefusal(verdict, index));
    }

    @org.junit.jupiter.api.Test
    void aFailureWithoutAnAnswerIsNeverAnEntrysFault() {
        RemoteException timeout =
                new RemoteException(RemoteException.Kind.AMBIGUOUS, 0, "", -1, "timeout", "timeout", null);
        assertThat(PushRefusal.of(timeout, 1).verdict()).isEqualTo(PushRefusal.Verdict.FAIL);
    }
}
