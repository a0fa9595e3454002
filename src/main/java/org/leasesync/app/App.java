package org.leasesync.app;

import atlantafx.base.theme.PrimerLight;
import java.time.Duration;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.control.Alert;
import javafx.stage.Stage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JavaFX application. Started through {@link #launch(Backend.AppSettings)} from the plain
 * {@code Launcher} main class (so JavaFX on the class path works).
 */
public final class App extends Application {

    private static final Logger log = LoggerFactory.getLogger(App.class);
    private static volatile Backend.AppSettings settings;
    private static volatile int exitCode;

    private Backend backend;
    private AppAssembly assembly;

    /** Opens the window and blocks until it is closed. @return the exit code */
    public static int launch(Backend.AppSettings s) {
        settings = s;
        exitCode = 0;
        Application.launch(App.class);
        return exitCode;
    }

    @Override
    public void start(Stage stage) {
        Application.setUserAgentStylesheet(new PrimerLight().getUserAgentStylesheet());
        try {
            backend = Backend.start(settings);
        } catch (RuntimeException e) {
            log.error("leasesync could not start", e);
            Alert alert = new Alert(Alert.AlertType.ERROR, e.getMessage());
            alert.setHeaderText("leasesync could not start");
            alert.setTitle("leasesync");
            alert.showAndWait();
            exitCode = 1;
            Platform.exit();
            return;
        }
        assembly = new AppAssembly(backend, settings, stage, Platform::runLater);
        stage.setOnCloseRequest(e -> log.info("window closed; stopping"));
        assembly.show();
    }

    @Override
    public void stop() {
        if (assembly != null) {
            assembly.close();
        }
        if (backend != null) {
            backend.close(Duration.ofSeconds(5));
        }
    }
}
