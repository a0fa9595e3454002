package org.leasesync.bench;

import javafx.application.Application;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.stage.Stage;

/**
 * The reference of the start-up benchmark ({@code jlink/startup-vs-bare.sh}): a bare
 * JavaFX window — one Stage of leasesync's size with one Label, titled {@code bare-window} — started
 * the way leasesync is (a plain {@code main} that launches the Application, JavaFX on the class
 * path), so the script can launch both with the same runtime and JVM options.
 */
public final class BareWindow {

    private BareWindow() {}

    public static void main(String[] args) {
        Application.launch(Window.class, args);
    }

    /** The window. */
    public static final class Window extends Application {
        @Override
        public void start(Stage stage) {
            stage.setTitle("bare-window");
            stage.setScene(new Scene(new Label("A bare JavaFX window"), 1180, 780));
            stage.show();
        }
    }
}
