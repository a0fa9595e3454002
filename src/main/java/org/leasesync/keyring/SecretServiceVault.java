package org.leasesync.keyring;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.connections.impl.DBusConnection;
import org.freedesktop.dbus.connections.impl.DBusConnectionBuilder;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.exceptions.DBusExecutionException;
import org.freedesktop.dbus.interfaces.DBusSigHandler;
import org.freedesktop.dbus.types.Variant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tokens in the desktop's keyring (GNOME Keyring, KWallet, KeePassXC — whatever serves the freedesktop
 * Secret Service on the session bus), one item per account with the attributes of its
 * {@link TokenSlot}, stored in the keyring's default collection.
 *
 * <p>The session uses the specification's {@code plain} algorithm: the secret crosses the user's own
 * session-bus socket unencrypted, which only processes of the same user can reach — the same
 * processes that may ask the unlocked keyring for every secret anyway. Nothing here ever locks a
 * collection; a locked one is unlocked through the service's own prompt (the desktop asks the user
 * for the keyring password), which is waited for at most the prompt timeout.
 *
 * <p>Thread-safe (one call at a time); every method blocks on the bus, a prompt up to its timeout.
 */
public final class SecretServiceVault implements TokenVault {

    private static final Logger log = LoggerFactory.getLogger(SecretServiceVault.class);
    private static final String ITEM_LABEL = "org.freedesktop.Secret.Item.Label";
    private static final String ITEM_ATTRIBUTES = "org.freedesktop.Secret.Item.Attributes";

    private final DBusConnection bus;
    private final SecretServiceBus.Service service;
    private final DBusPath session;
    private final Duration promptTimeout;

    private SecretServiceVault(
            DBusConnection bus, SecretServiceBus.Service service, DBusPath session, Duration promptTimeout) {
        this.bus = bus;
        this.service = service;
        this.session = session;
        this.promptTimeout = promptTimeout;
    }

    /**
     * Connects to the Secret Service on the bus at {@code address} and opens a {@code plain} session.
     * The service may be started by the bus (D-Bus activation) for this. Blocks.
     *
     * @param promptTimeout how long an unlock prompt is waited for
     * @throws KeyringUnavailableException when the bus cannot be reached or no Secret Service answers on it
     */
    public static SecretServiceVault connect(String address, Duration promptTimeout) {
        DBusConnection c = null;
        try {
            c = DBusConnectionBuilder.forAddress(address).withShared(false).build();
            // asked first, so that a bus without a keyring is known at once rather than after a call times out
            org.freedesktop.dbus.interfaces.DBus daemon = c.getRemoteObject(
                    "org.freedesktop.DBus", "/org/freedesktop/DBus", org.freedesktop.dbus.interfaces.DBus.class);
            if (!daemon.NameHasOwner(SecretServiceBus.BUS_NAME)
                    && !java.util.Arrays.asList(daemon.ListActivatableNames()).contains(SecretServiceBus.BUS_NAME)) {
                throw new KeyringUnavailableException("no Secret Service on the session bus " + address
                        + ": no keyring daemon runs there, and the bus cannot start one");
            }
            SecretServiceBus.Service s = c.getRemoteObject(
                    SecretServiceBus.BUS_NAME, SecretServiceBus.SERVICE_PATH, SecretServiceBus.Service.class);
            DBusPath session = s.OpenSession("plain", new Variant<>("")).getResult();
            return new SecretServiceVault(c, s, session, promptTimeout);
        } catch (DBusException | DBusExecutionException e) {
            if (c != null) {
                disconnect(c);
            }
            throw new KeyringUnavailableException(
                    "no Secret Service answers on the session bus " + address + " (" + e.getMessage() + ")", e);
        } catch (KeyringUnavailableException e) {
            disconnect(c);
            throw e;
        } catch (RuntimeException e) {
            if (c != null) {
                disconnect(c);
            }
            throw new KeyringUnavailableException("the session bus " + address + " cannot be reached (" + e + ")", e);
        }
    }

    @Override
    public String description() {
        return "the desktop keyring (Secret Service)";
    }

    @Override
    public Place place() {
        return Place.KEYRING;
    }

    @Override
    public synchronized void store(TokenSlot slot, String token) {
        try {
            DBusPath collection = service.ReadAlias("default");
            if (collection == null || SecretServiceBus.NONE.equals(collection.getPath())) {
                throw new KeyringUnavailableException(
                        "the desktop keyring has no default collection to keep the " + "token in");
            }
            unlock(List.of(collection));
            Map<String, Variant<?>> properties = new LinkedHashMap<>();
            properties.put(ITEM_LABEL, new Variant<>(slot.label()));
            properties.put(ITEM_ATTRIBUTES, new Variant<>(slot.attributes(), "a{ss}"));
            SecretServiceBus.Collection c = bus.getRemoteObject(
                    SecretServiceBus.BUS_NAME, collection.getPath(), SecretServiceBus.Collection.class);
            SecretServiceBus.CreateItemResult r = c.CreateItem(
                    properties,
                    new SecretServiceBus.Secret(
                            session, new byte[0], token.getBytes(StandardCharsets.UTF_8), "text/plain"),
                    true);
            prompt(r.getPrompt(), "store the token of " + slot);
            log.info("stored the session token of {} in the desktop keyring", slot);
        } catch (DBusException | DBusExecutionException e) {
            throw new KeyringException(
                    "the desktop keyring did not store the token of " + slot + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized Optional<String> find(TokenSlot slot) {
        try {
            SecretServiceBus.SearchResult found = service.SearchItems(slot.attributes());
            List<DBusPath> items = new ArrayList<>(found.getUnlocked());
            if (items.isEmpty() && !found.getLocked().isEmpty()) {
                unlock(found.getLocked());
                items.addAll(found.getLocked());
            }
            if (items.isEmpty()) {
                return Optional.empty();
            }
            SecretServiceBus.Item item =
                    bus.getRemoteObject(SecretServiceBus.BUS_NAME, items.get(0).getPath(), SecretServiceBus.Item.class);
            byte[] value = item.GetSecret(session).getValue();
            return Optional.of(new String(value, StandardCharsets.UTF_8));
        } catch (DBusException | DBusExecutionException e) {
            throw new KeyringException(
                    "the desktop keyring did not give the token of " + slot + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized boolean remove(TokenSlot slot) {
        try {
            SecretServiceBus.SearchResult found = service.SearchItems(slot.attributes());
            List<DBusPath> items = new ArrayList<>(found.getUnlocked());
            if (!found.getLocked().isEmpty()) {
                unlock(found.getLocked()); // only these items; nothing else is locked or unlocked
                items.addAll(found.getLocked());
            }
            for (DBusPath p : items) {
                SecretServiceBus.Item item =
                        bus.getRemoteObject(SecretServiceBus.BUS_NAME, p.getPath(), SecretServiceBus.Item.class);
                prompt(item.Delete(), "remove the token of " + slot);
            }
            if (!items.isEmpty()) {
                log.info("removed the session token of {} from the desktop keyring", slot);
            }
            return !items.isEmpty();
        } catch (DBusException | DBusExecutionException e) {
            throw new KeyringException(
                    "the desktop keyring did not remove the token of " + slot + ": " + e.getMessage(), e);
        }
    }

    /** Unlocks {@code objects}, through the service's prompt when it asks for one. */
    private void unlock(List<DBusPath> objects) throws DBusException {
        SecretServiceBus.UnlockResult r = service.Unlock(objects);
        prompt(r.getPrompt(), "unlock the keyring");
    }

    /**
     * Runs a prompt the service handed back and waits for its answer.
     *
     * @throws KeyringException when it is dismissed or not answered within the prompt timeout
     */
    private void prompt(DBusPath prompt, String what) throws DBusException {
        if (prompt == null || SecretServiceBus.NONE.equals(prompt.getPath())) {
            return;
        }
        CountDownLatch done = new CountDownLatch(1);
        AtomicBoolean dismissed = new AtomicBoolean();
        DBusSigHandler<SecretServiceBus.Prompt.Completed> onCompleted = s -> {
            if (prompt.getPath().equals(s.getPath())) {
                dismissed.set(s.dismissed());
                done.countDown();
            }
        };
        bus.addSigHandler(SecretServiceBus.Prompt.Completed.class, onCompleted);
        SecretServiceBus.Prompt p =
                bus.getRemoteObject(SecretServiceBus.BUS_NAME, prompt.getPath(), SecretServiceBus.Prompt.class);
        try {
            log.info("the desktop keyring asks the user to {}", what);
            p.Prompt("");
            if (!done.await(promptTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.Dismiss();
                throw new KeyringException("the desktop keyring asked to " + what + " and no answer came within "
                        + promptTimeout.toSeconds() + " s");
            }
            if (dismissed.get()) {
                throw new KeyringException("the desktop keyring asked to " + what + " and the request was dismissed"
                        + " (unlock the keyring, then try again)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KeyringException("interrupted while the desktop keyring asked to " + what, e);
        } finally {
            bus.removeSigHandler(SecretServiceBus.Prompt.Completed.class, onCompleted);
        }
    }

    @Override
    public synchronized void close() {
        try {
            bus.getRemoteObject(SecretServiceBus.BUS_NAME, session.getPath(), SecretServiceBus.Session.class)
                    .Close();
        } catch (DBusException | RuntimeException e) {
            log.debug("closing the keyring session: {}", e.toString());
        }
        disconnect(bus);
    }

    private static void disconnect(DBusConnection c) {
        try {
            c.close();
        } catch (java.io.IOException | RuntimeException e) {
            log.debug("closing the session bus connection: {}", e.toString());
        }
    }
}
