/**
 * The JavaFX window: views, their view models, dialogs, the foreground trigger, and the window's
 * composition root ({@link org.leasesync.desktop.fx.AppAssembly}). Views are thin: they build
 * controls, bind them to view-model properties and hand every action to the view model in one
 * line; view models expose read-only properties, run their work on an injected executor and are
 * tested without a stage.
 *
 * <p>May import: everything of {@code desktop} and below, JavaFX. Never {@code cli} or picocli.
 * Views import only JavaFX, their view models and the FX-free desktop model.
 */
package org.leasesync.desktop.fx;
