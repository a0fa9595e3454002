package org.leasesync.desktop.fx;

import java.util.Objects;
import javafx.application.Platform;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.leasesync.desktop.Backend;
import org.testfx.api.FxRobot;

/**
 * The app's real window on a real backend for a TestFX test, the set-up most UI tests share:
 * {@link #open} from the test's {@code @Start} method starts the backend (its local H2 file, the
 * embedded reference server) and shows the window on TestFX's stage; after each test the dialogs
 * left open are hidden, the window's assembly is closed on the FX thread and the backend after it.
 *
 * <pre>{@code
 * @RegisterExtension final AppWindow window = new AppWindow();
 * @Start void start(Stage stage) { assembly = window.open(stage, settings); backend = window.backend(); }
 * }</pre>
 *
 * <p>Not thread-safe: the test's thread and TestFX's {@code @Start} use it one after the other.
 */
final class AppWindow implements AfterEachCallback {

    private Backend backend;
    private AppAssembly assembly;
    private Stage stage;

    /** Starts the backend with {@code settings} and shows the window on {@code stage}. FX thread. */
    AppAssembly open(Stage stage, Backend.AppSettings settings) {
        this.stage = Objects.requireNonNull(stage, "stage");
        backend = Backend.start(settings);
        assembly = new AppAssembly(backend, settings, stage, Platform::runLater);
        assembly.show();
        return assembly;
    }

    /** The backend {@link #open} started. */
    Backend backend() {
        return Objects.requireNonNull(backend, "open(...) was not called");
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (assembly != null) {
            new FxRobot().interact(() -> {
                Window.getWindows().stream().filter(w -> w != stage).toList().forEach(Window::hide);
                assembly.close();
            });
            assembly = null;
        }
        if (backend != null) {
            backend.close();
            backend = null;
        }
    }
}
