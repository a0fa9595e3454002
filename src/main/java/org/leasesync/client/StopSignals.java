package org.leasesync.client;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A clean stop on SIGTERM, SIGINT (Ctrl-C) and SIGHUP (logout, closed terminal): the given action
 * runs first — cancel the runs (each records "cancelled" and releases its lease), close the
 * database — and only then does the JVM exit, with 128 + the signal's number (143 for SIGTERM).
 *
 * <p>Why not a shutdown hook: the JVM starts all shutdown hooks at once, and H2's own hook closes
 * the local database (it cannot be told not to in automatic mixed mode), so the runs' last writes
 * would race it. A signal handler runs before the JVM begins to shut down. A second signal while
 * the action runs ends the process at once.
 *
 * <p>Thread-safe. Uses {@code sun.misc.Signal} (module {@code jdk.unsupported}, part of the runtime
 * image); on a JVM without it, or where the signal is reserved, nothing is installed and the JVM's
 * default applies. It is reached through method handles, not imported: javac warns on every
 * reference to it with a warning no option or annotation turns off, and the build treats warnings as
 * errors.
 */
public final class StopSignals implements AutoCloseable {

    private static final List<String> SIGNALS = List.of("TERM", "INT", "HUP");

    private final Runnable cleanStop;
    private final AtomicBoolean armed = new AtomicBoolean(true);
    private final AtomicBoolean stopping = new AtomicBoolean();
    /** Each signal installed (a {@code sun.misc.Signal}) and the handler it had before. */
    private final Map<Object, Object> previous = new ConcurrentHashMap<>();

    private StopSignals(Runnable cleanStop) {
        this.cleanStop = cleanStop;
    }

    /**
     * Runs {@code cleanStop} on the first of these signals, then exits. {@link #close()} gives the
     * signals back to the handlers they had (the JVM's: exit at once).
     */
    public static StopSignals install(Runnable cleanStop) {
        StopSignals s = new StopSignals(cleanStop);
        SignalApi api = SignalApi.find();
        if (api == null) {
            return s; // no sun.misc.Signal here: the JVM's default stays
        }
        Object handler = api.handler(s::handle);
        for (String name : SIGNALS) {
            try {
                Object signal = api.signal(name);
                s.previous.put(signal, api.handle(signal, handler));
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // reserved or unknown here: the JVM's default stays
            }
        }
        return s;
    }

    private void handle(int signalNumber) {
        if (!armed.get()) {
            return;
        }
        if (!stopping.compareAndSet(false, true)) {
            Runtime.getRuntime().halt(128 + signalNumber); // a second signal: the user insists
        }
        try {
            cleanStop.run();
        } finally {
            Runtime.getRuntime().exit(128 + signalNumber);
        }
    }

    /**
     * Stops handling the signals (the process is ending normally); idempotent. While a stop is in
     * progress it blocks instead, until that stop ends the process, so the normal ending (its own
     * exit code, closing the database) does not race the clean stop.
     */
    @Override
    public void close() {
        while (stopping.get()) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        SignalApi api = SignalApi.find();
        if (armed.compareAndSet(true, false) && api != null) {
            previous.forEach((signal, handler) -> {
                try {
                    api.handle(signal, handler);
                } catch (IllegalArgumentException e) {
                    // leave it
                }
            });
        }
    }

    /** {@code sun.misc.Signal} and {@code sun.misc.SignalHandler} through method handles. */
    private record SignalApi(Class<?> handlerType, MethodHandle newSignal, MethodHandle handle, MethodHandle number) {

        static SignalApi find() {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                Class<?> signalType = Class.forName("sun.misc.Signal");
                Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
                return new SignalApi(
                        handlerType,
                        lookup.findConstructor(signalType, MethodType.methodType(void.class, String.class)),
                        lookup.findStatic(
                                signalType, "handle", MethodType.methodType(handlerType, signalType, handlerType)),
                        lookup.findVirtual(signalType, "getNumber", MethodType.methodType(int.class)));
            } catch (ReflectiveOperationException | LinkageError e) {
                return null;
            }
        }

        Object signal(String name) {
            return invoke(newSignal, name);
        }

        /** Installs {@code handler} for {@code signal}; returns the handler it had. */
        Object handle(Object signal, Object handler) {
            return invoke(handle, signal, handler);
        }

        /** A {@code SignalHandler} that passes the signal's number to {@code onSignal}. */
        Object handler(java.util.function.IntConsumer onSignal) {
            return Proxy.newProxyInstance(
                    handlerType.getClassLoader(),
                    new Class<?>[] {handlerType},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "handle" -> {
                            onSignal.accept((int) invoke(number, args[0]));
                            yield null;
                        }
                        case "equals" -> proxy == args[0];
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "toString" -> "StopSignals handler";
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        private static Object invoke(MethodHandle h, Object... args) {
            try {
                return h.invokeWithArguments(args);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("sun.misc.Signal failed", e);
            }
        }
    }
}
