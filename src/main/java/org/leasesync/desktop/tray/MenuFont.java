package org.leasesync.desktop.tray;

import java.awt.Font;
import java.awt.GraphicsEnvironment;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The font of the tray menu when its texts need one: AWT's logical font (Dialog) takes its CJK
 * glyphs from whatever fontconfig offers first, and with WenQuanYi Zen Hei installed that is often
 * its "Sharp" face, whose embedded bitmaps AWT draws with strokes missing. When a text has a
 * character outside Latin-1, the menu gets a physical font that can display every character of every
 * text, preferring outline CJK fonts (Noto/Source Han Sans SC, WenQuanYi Micro Hei, WenQuanYi Zen Hei,
 * Droid Sans Fallback), never a bitmap face ("Sharp", "Bitmap", "Fixed").
 *
 * <p>Stateless and thread-safe; {@link #forTexts} reads the installed fonts (fast after AWT's first look).
 */
public final class MenuFont {

    /** Menu text size in points, as AWT's menus on X11 draw them (Dialog 12). */
    public static final int SIZE = 12;

    /** Outline fonts with Simplified Chinese, best first. */
    static final List<String> PREFERRED = List.of(
            "Noto Sans CJK SC",
            "Noto Sans SC",
            "Source Han Sans SC",
            "Source Han Sans CN",
            "WenQuanYi Micro Hei",
            "WenQuanYi Zen Hei",
            "Droid Sans Fallback",
            "AR PL UKai CN",
            "AR PL UMing CN");

    private MenuFont() {}

    /**
     * The font for {@code texts} among the installed fonts; empty when the logical font serves (every
     * character is Latin-1) or when no installed font can display them all (the logical font is the
     * best there is then).
     */
    public static Optional<Font> forTexts(Collection<String> texts) {
        if (!needsOwnFont(texts)) {
            return Optional.empty();
        }
        String[] families = GraphicsEnvironment.getLocalGraphicsEnvironment().getAvailableFontFamilyNames(Locale.ROOT);
        return choose(texts, List.of(families), f -> new Font(f, Font.PLAIN, SIZE));
    }

    /** Whether a text has a character the logical font's Latin part does not cover. */
    static boolean needsOwnFont(Collection<String> texts) {
        return texts.stream().anyMatch(t -> t.chars().anyMatch(c -> c > 0xFF && !isCommonPunctuation(c)));
    }

    /** Dashes, dots and ellipses the Latin fonts have: "Settings…", "a · b", "—". */
    private static boolean isCommonPunctuation(int c) {
        return c == '\u2014' || c == '\u2013' || c == '\u2026' || c == '\u00b7' || c == '\u25b8';
    }

    /**
     * The first of {@link #PREFERRED} installed that displays every character, else the first other
     * installed family (in name order) that does, never a bitmap face.
     */
    static Optional<Font> choose(Collection<String> texts, Collection<String> installed, Function<String, Font> make) {
        Set<String> have = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        have.addAll(installed);
        List<String> order = new ArrayList<>();
        for (String p : PREFERRED) {
            if (have.contains(p)) {
                order.add(p);
            }
        }
        new TreeSet<>(installed).stream().filter(f -> !order.contains(f)).forEach(order::add);
        for (String family : order) {
            if (isExcluded(family)) {
                continue;
            }
            Font f = make.apply(family);
            if (texts.stream().allMatch(t -> f.canDisplayUpTo(t) == -1)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    /** Bitmap faces (drawn with strokes missing) and AWT's logical fonts (the composite this replaces). */
    static boolean isExcluded(String family) {
        String f = family.toLowerCase(Locale.ROOT);
        return f.contains("sharp")
                || f.contains("bitmap")
                || f.contains("fixed")
                || f.startsWith("dialog")
                || f.startsWith("monospaced")
                || f.startsWith("sansserif")
                || f.startsWith("serif");
    }
}
