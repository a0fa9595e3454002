package org.leasesync.desktop.fx;

import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;

/** Puts text on the system clipboard, for the dialogs' Copy buttons. FX thread only. */
final class Clipboards {

    private Clipboards() {}

    /** Replaces the clipboard's content with {@code text} (plain text only). */
    static void copy(String text) {
        ClipboardContent c = new ClipboardContent();
        c.putString(text);
        Clipboard.getSystemClipboard().setContent(c);
    }
}
