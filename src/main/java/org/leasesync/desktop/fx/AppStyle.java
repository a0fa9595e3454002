package org.leasesync.desktop.fx;

import java.util.Locale;
import javafx.scene.Scene;

/**
 * The window's stylesheet ({@code app.css}) on a scene, with the root marked by the window's language
 * ({@code lang-en}, {@code lang-zh}), so that the stylesheet can set what a language's fonts need:
 * the CJK fonts most often installed (WenQuanYi Zen Hei, Droid Sans Fallback) have no bold face, and
 * JavaFX draws their "bold" as regular, so Chinese headings are emboldened by stroking their outline.
 *
 * <p>FX thread.
 */
final class AppStyle {

    private AppStyle() {}

    /** Adds {@code app.css} to {@code scene} and the style class {@code lang-LANGUAGE} to its root. */
    static void apply(Scene scene, Locale locale) {
        scene.getStylesheets().add(AppStyle.class.getResource("app.css").toExternalForm());
        scene.getRoot().getStyleClass().add("lang-" + locale.getLanguage());
    }
}
