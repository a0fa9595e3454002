package org.leasesync.desktop.fx;

import javafx.beans.binding.Bindings;
import javafx.beans.value.ObservableStringValue;
import javafx.css.PseudoClass;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Region;

/**
 * The dialogs' error lines: each on a line of its own whose height is held whether it is empty or
 * not, so an error appearing or going never moves the fields and buttons below it; the field it is
 * about marked (the theme's {@code :danger} state) while it has text; the whole text as a tooltip
 * when it is longer than its two lines. FX thread.
 */
final class FieldErrors {

    /** Two lines of the dialogs' text. */
    static final double LINE_HEIGHT = 34;

    static final PseudoClass DANGER = PseudoClass.getPseudoClass("danger");

    private FieldErrors() {}

    /**
     * A reserved error line showing {@code text}.
     *
     * @param input the field marked while the line has text; null for a line about no one field
     */
    static Label line(String id, ObservableStringValue text, Node input) {
        Label l = new Label();
        l.setId(id);
        l.getStyleClass().add("field-error");
        l.setWrapText(true);
        l.setAlignment(Pos.TOP_LEFT);
        l.textProperty().bind(text);
        hold(l);
        tooltip(l);
        if (input != null) {
            text.addListener((o, a, b) -> input.pseudoClassStateChanged(DANGER, !b.isEmpty()));
        }
        return l;
    }

    /** Holds a region at exactly {@link #LINE_HEIGHT}, empty or not, so nothing below it moves. */
    static void hold(Region r) {
        r.setMinHeight(LINE_HEIGHT);
        r.setPrefHeight(LINE_HEIGHT);
        r.setMaxHeight(LINE_HEIGHT);
        r.setMaxWidth(Double.MAX_VALUE);
    }

    /** The whole text on hovering, for a line too long for its two lines. */
    static void tooltip(Label l) {
        Tooltip tip = new Tooltip();
        tip.textProperty().bind(l.textProperty());
        tip.setWrapText(true);
        tip.setMaxWidth(560);
        l.tooltipProperty()
                .bind(Bindings.when(l.textProperty().isEmpty())
                        .then((Tooltip) null)
                        .otherwise(tip));
    }
}
