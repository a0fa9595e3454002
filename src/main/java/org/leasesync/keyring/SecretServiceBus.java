package org.leasesync.keyring;

import java.util.List;
import java.util.Map;
import org.freedesktop.dbus.DBusPath;
import org.freedesktop.dbus.Struct;
import org.freedesktop.dbus.Tuple;
import org.freedesktop.dbus.annotations.DBusInterfaceName;
import org.freedesktop.dbus.annotations.Position;
import org.freedesktop.dbus.exceptions.DBusException;
import org.freedesktop.dbus.interfaces.DBusInterface;
import org.freedesktop.dbus.messages.DBusSignal;
import org.freedesktop.dbus.types.Variant;

/**
 * The part of the freedesktop Secret Service API (version 0.2; bus name {@code org.freedesktop.secrets}
 * on the session bus) that leasesync uses, declared for dbus-java's proxies — the same way the
 * notifier declares {@code org.freedesktop.Notifications}. Method, signal and member names are the
 * specification's; a method with several out-arguments returns a {@link Tuple}.
 */
public final class SecretServiceBus {

    /** The bus name of the Secret Service. */
    public static final String BUS_NAME = "org.freedesktop.secrets";
    /** The service object. */
    public static final String SERVICE_PATH = "/org/freedesktop/secrets";
    /** "No object" (no prompt needed, no such collection). */
    public static final String NONE = "/";

    private SecretServiceBus() {}

    /** {@code org.freedesktop.Secret.Service}. */
    @DBusInterfaceName("org.freedesktop.Secret.Service")
    public interface Service extends DBusInterface {

        /** Opens a session for transferring secrets; {@code plain} with an empty string as input. */
        OpenSessionResult OpenSession(String algorithm, Variant<?> input);

        /** Items of every collection with these attributes, unlocked and locked ones apart. */
        SearchResult SearchItems(Map<String, String> attributes);

        /** Unlocks objects; a prompt path other than {@code /} must be run for the rest. */
        UnlockResult Unlock(List<DBusPath> objects);

        /** The collection of an alias ({@code default}), or {@code /}. */
        DBusPath ReadAlias(String name);
    }

    /** {@code org.freedesktop.Secret.Collection}. */
    @DBusInterfaceName("org.freedesktop.Secret.Collection")
    public interface Collection extends DBusInterface {

        /** Creates (with {@code replace}: replaces the item of equal attributes) an item. */
        CreateItemResult CreateItem(Map<String, Variant<?>> properties, Secret secret, boolean replace);
    }

    /** {@code org.freedesktop.Secret.Item}. */
    @DBusInterfaceName("org.freedesktop.Secret.Item")
    public interface Item extends DBusInterface {

        /** Deletes the item; returns a prompt, or {@code /} when none is needed. */
        DBusPath Delete();

        /** The item's secret, encoded for {@code session}. */
        Secret GetSecret(DBusPath session);
    }

    /** {@code org.freedesktop.Secret.Session}. */
    @DBusInterfaceName("org.freedesktop.Secret.Session")
    public interface Session extends DBusInterface {

        /** Ends the session. */
        void Close();
    }

    /** {@code org.freedesktop.Secret.Prompt}: asks the user (unlock a keyring, confirm a deletion). */
    @DBusInterfaceName("org.freedesktop.Secret.Prompt")
    public interface Prompt extends DBusInterface {

        /** Shows the prompt; {@code windowId} may be empty. The answer comes as {@link Completed}. */
        void Prompt(String windowId);

        /** Withdraws the prompt. */
        void Dismiss();

        /** The prompt ended: dismissed by the user, or done with its result. */
        class Completed extends DBusSignal {
            private final boolean dismissed;

            public Completed(String path, boolean dismissed, Variant<?> result) throws DBusException {
                super(path, dismissed, result);
                this.dismissed = dismissed;
            }

            public boolean dismissed() {
                return dismissed;
            }
        }
    }

    /**
     * The {@code (oayays)} secret: session, algorithm parameters, value, content type. (dbus-java's
     * {@code toString} of a struct lists its members: never log one.)
     */
    public static final class Secret extends Struct {
        @Position(0)
        private final DBusPath session;

        @Position(1)
        private final byte[] parameters;

        @Position(2)
        private final byte[] value;

        @Position(3)
        private final String contentType;

        public Secret(DBusPath session, byte[] parameters, byte[] value, String contentType) {
            this.session = session;
            this.parameters = parameters;
            this.value = value;
            this.contentType = contentType;
        }

        public DBusPath getSession() {
            return session;
        }

        public byte[] algorithmParameters() {
            return parameters;
        }

        public byte[] getValue() {
            return value;
        }

        public String getContentType() {
            return contentType;
        }
    }

    /** {@code OpenSession}'s out-arguments. */
    public static final class OpenSessionResult extends Tuple {
        @Position(0)
        private final Variant<?> output;

        @Position(1)
        private final DBusPath result;

        public OpenSessionResult(Variant<?> output, DBusPath result) {
            this.output = output;
            this.result = result;
        }

        public Variant<?> getOutput() {
            return output;
        }

        public DBusPath getResult() {
            return result;
        }
    }

    /** {@code SearchItems}'s out-arguments. */
    public static final class SearchResult extends Tuple {
        @Position(0)
        private final List<DBusPath> unlocked;

        @Position(1)
        private final List<DBusPath> locked;

        public SearchResult(List<DBusPath> unlocked, List<DBusPath> locked) {
            this.unlocked = unlocked;
            this.locked = locked;
        }

        public List<DBusPath> getUnlocked() {
            return unlocked;
        }

        public List<DBusPath> getLocked() {
            return locked;
        }
    }

    /** {@code Unlock}'s out-arguments. */
    public static final class UnlockResult extends Tuple {
        @Position(0)
        private final List<DBusPath> unlocked;

        @Position(1)
        private final DBusPath prompt;

        public UnlockResult(List<DBusPath> unlocked, DBusPath prompt) {
            this.unlocked = unlocked;
            this.prompt = prompt;
        }

        public List<DBusPath> getUnlocked() {
            return unlocked;
        }

        public DBusPath getPrompt() {
            return prompt;
        }
    }

    /** {@code CreateItem}'s out-arguments. */
    public static final class CreateItemResult extends Tuple {
        @Position(0)
        private final DBusPath item;

        @Position(1)
        private final DBusPath prompt;

        public CreateItemResult(DBusPath item, DBusPath prompt) {
            this.item = item;
            this.prompt = prompt;
        }

        public DBusPath getItem() {
            return item;
        }

        public DBusPath getPrompt() {
            return prompt;
        }
    }
}
