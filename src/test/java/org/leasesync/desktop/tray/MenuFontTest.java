package org.leasesync.desktop.tray;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.font.FontRenderContext;
import java.awt.font.GlyphVector;
import java.awt.image.BufferedImage;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.leasesync.desktop.Messages;

/**
 * The tray menu's font for Chinese texts, with the fonts installed on this machine (CI installs
 * fonts-wqy-zenhei): one that displays every character of every menu text, never a bitmap face, and
 * whose glyphs, drawn as AWT draws the menu, are real glyphs — not the missing-glyph box and not empty.
 */
@Timeout(60)
class MenuFontTest {

    static List<String> menuTexts(Locale locale) {
        Messages m = new Messages(locale, ZoneOffset.UTC);
        String tooltip = m.get("tray.tooltip", m.get("state.FAILED"), "15:03");
        return new AwtTray(m).menuTexts(new TrayPort.TrayView(TrayState.values()[0], tooltip, false));
    }

    @Test
    void chineseMenuTextsGetAnInstalledFontThatDrawsEveryCharacter() {
        List<String> texts = menuTexts(Locale.SIMPLIFIED_CHINESE);
        assertThat(String.join("", texts)).contains("退出").contains("暂停");
        Font font = MenuFont.forTexts(texts)
                .orElseThrow(() -> new AssertionError(
                        "no installed font displays the Chinese menu (install fonts-wqy-zenhei or fonts-noto-cjk)"));
        assertThat(MenuFont.isExcluded(font.getFamily(Locale.ROOT)))
                .as(font.getFamily(Locale.ROOT))
                .isFalse();
        FontRenderContext frc = new FontRenderContext(null, false, false);
        byte[] missing = draw(font, font.createGlyphVector(frc, new int[] {font.getMissingGlyphCode()}));
        for (String text : texts) {
            assertThat(font.canDisplayUpTo(text))
                    .as("%s in %s", text, font.getFamily())
                    .isEqualTo(-1);
            text.codePoints().filter(c -> !Character.isWhitespace(c)).forEach(c -> {
                String ch = new String(Character.toChars(c));
                GlyphVector g = font.createGlyphVector(frc, ch);
                assertThat(g.getGlyphCode(0)).as("glyph of %s", ch).isNotEqualTo(font.getMissingGlyphCode());
                byte[] drawn = draw(font, g);
                assertThat(ink(drawn)).as("ink of %s", ch).isPositive();
                assertThat(Arrays.equals(drawn, missing))
                        .as("%s drawn as the missing-glyph box", ch)
                        .isFalse();
            });
        }
    }

    @Test
    void englishMenuTextsKeepTheLogicalFont() {
        assertThat(MenuFont.forTexts(menuTexts(Locale.UK))).isEmpty();
    }

    @Test
    void aBitmapFaceOrTheLogicalFontIsNeverChosen() {
        List<String> zh = List.of("退出 leasesync");
        List<String> installed = List.of("Dialog", "WenQuanYi Zen Hei Sharp", "WenQuanYi Zen Hei");
        assertThat(MenuFont.choose(zh, installed, f -> new Font(f, Font.PLAIN, MenuFont.SIZE))
                        .map(f -> f.getName()))
                .contains("WenQuanYi Zen Hei");
    }

    /** The glyph drawn black on white at the menu's size, without antialiasing, as grey bytes. */
    static byte[] draw(Font font, GlyphVector g) {
        BufferedImage img = new BufferedImage(32, 32, BufferedImage.TYPE_BYTE_GRAY);
        Graphics2D gr = img.createGraphics();
        gr.setColor(Color.WHITE);
        gr.fillRect(0, 0, 32, 32);
        gr.setColor(Color.BLACK);
        gr.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_OFF);
        gr.setFont(font);
        gr.drawGlyphVector(g, 4, 22);
        gr.dispose();
        return ((java.awt.image.DataBufferByte) img.getRaster().getDataBuffer())
                .getData()
                .clone();
    }

    static long ink(byte[] grey) {
        long n = 0;
        for (byte b : grey) {
            if ((b & 0xff) < 128) {
                n++;
            }
        }
        return n;
    }
}
