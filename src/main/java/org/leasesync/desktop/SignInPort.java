package org.leasesync.desktop;

import java.util.Optional;
import org.leasesync.client.SignInResult;
import org.leasesync.remote.ServerUrls;

/** Where the Sign in dialog signs in: {@link WindowAccounts} in the window, a fake in its tests. */
public interface SignInPort {

    /**
     * Signs in and, when the server said yes, makes the account one the window can switch to. Blocks
     * (network, session bus, maybe a keyring prompt); never on the FX thread.
     */
    SignInResult signIn(SignInRequest request);

    /**
     * The server {@code user} is already signed in on here, when that is not {@code servers}: this
     * device keeps one copy of a user's data, so one user id is one account at a time. Does not block.
     */
    Optional<String> signedInElsewhere(String user, ServerUrls servers);
}
