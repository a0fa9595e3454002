package org.leasesync.desktop;

import java.util.Objects;
import org.leasesync.remote.ServerUrls;
import org.leasesync.remote.TransportSecurity;

/**
 * What the Sign in dialog asks the server with, checked by the dialog first. The password is the
 * caller's array: whoever made the request clears it once the sign-in returned.
 *
 * @param servers the server URL(s)
 * @param user the user id
 * @param password the password, 1..1024 characters (cleared by the caller after use)
 * @param device the name the user sees in their session list, 1..100 printable characters
 * @param transport plain http to another machine allowed or not, and the CA file (already read)
 */
public record SignInRequest(
        ServerUrls servers, String user, char[] password, String device, TransportSecurity transport) {

    public SignInRequest {
        Objects.requireNonNull(servers, "servers");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(transport, "transport");
    }

    /** Never the password. */
    @Override
    public String toString() {
        return "SignInRequest[" + servers + ", user=" + user + ", device=" + device + ", " + transport + "]";
    }
}
