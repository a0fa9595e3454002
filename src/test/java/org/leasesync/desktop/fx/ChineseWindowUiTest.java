package org.leasesync.desktop.fx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.leasesync.desktop.fx.UiTestSupport.text;
import static org.leasesync.desktop.fx.UiTestSupport.waitUntil;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Labeled;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TextInputControl;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.leasesync.desktop.Autostart;
import org.leasesync.desktop.Backend;
import org.leasesync.desktop.Messages;
import org.leasesync.desktop.StartOptions;
import org.leasesync.desktop.notify.Notifier;
import org.leasesync.lease.Scope;
import org.leasesync.testing.FxTest;
import org.leasesync.testing.ManualTime;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The real window and the settings dialog under zh_CN: cards, buttons, menus, tray and dialog in
 * Chinese, and no English left in what the user sees (a scan of the rendered scene graph).
 */
@ExtendWith(ApplicationExtension.class)
@FxTest
class ChineseWindowUiTest {

    /** An ASCII word of more than 3 letters: English left untranslated. */
    static final Pattern WORD = Pattern.compile("[A-Za-z]{4,}");
    /**
     * What may stay ASCII: URLs, the product's name, JSON (and its name), HTTP and HTTPS (protocol names, as
     * Chinese writes them too), an example record id
     * ("course-7"), and "English" as the language list's name of English in English (each language is
     * listed in its own name). User data is skipped by id (#account) and by column (ids, record
     * content, owners, task keys: {@link DataView#USER_DATA}).
     */
    static final Pattern ALLOWED = Pattern.compile(
            "https?://\\S+|leasesync(\\.jar)?|\\{.*}|\\bJSON\\b|\\bHTTPS?\\b|\\b[a-z]+-\\d+\\b|^English$");

    @TempDir
    Path tmp;

    final ManualTime time = new ManualTime(); // 2026-11-30T10:00:00Z
    Stage stage;
    Backend backend;
    AppAssembly assembly;
    final org.leasesync.testing.RecordingTray tray = new org.leasesync.testing.RecordingTray(true);

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    @AfterEach
    void tearDown(FxRobot robot) {
        if (assembly != null) {
            robot.interact(assembly::close);
            backend.close();
        }
    }

    @Test
    void theWindowTrayAndSettingsSpeakChineseWithNoEnglishWordLeft(FxRobot robot) throws Exception {
        Backend.AppSettings s = UiTestSupport.settings(tmp.resolve("data"), Duration.ofHours(1), time);
        robot.interact(() -> {
            backend = Backend.start(s);
            HostDesktop parts = new HostDesktop(
                    new Messages(Locale.SIMPLIFIED_CHINESE, java.time.ZoneId.of("Asia/Shanghai")),
                    tray,
                    clicked -> Notifier.NONE,
                    new Autostart(
                            tmp.resolve("config"), tmp.resolve("config").resolveSibling("share"), Optional.empty()),
                    exit -> {},
                    () -> {},
                    HostDesktop.PROBE_FIRST,
                    HostDesktop.PROBE_MAX);
            assembly = new AppAssembly(
                    backend,
                    new StartOptions(s, Set.of(), Locale.SIMPLIFIED_CHINESE),
                    stage,
                    Platform::runLater,
                    parts);
            assembly.show();
        });
        Thread trayStart = new Thread(assembly::installTray, "tray-start");
        trayStart.start();
        trayStart.join(20_000);
        robot.clickOn("#sync-all");
        for (Scope sc : Scope.values()) {
            waitUntil(
                    "card " + sc + " synced",
                    () -> text(robot, "#status-" + sc.wireName()).startsWith("已是最新"));
        }
        assertThat(text(robot, "#status-course_sync"))
                .isEqualTo("已是最新 · 刚刚同步（18:00:00）"); // 10:00Z in Shanghai, 24-hour; within a minute: "just now"
        assertThat(robot.lookup("#sync-course_sync").queryButton().getText()).isEqualTo("立即同步");
        assertThat(robot.lookup("#sync-all").queryButton().getText()).isEqualTo("全部同步");
        waitUntil(
                "the tray's tooltip",
                () -> !tray.views.isEmpty() && tray.last().tooltip().equals("已是最新 · 上次成功同步 18:00"));

        assertThat(englishWords()).as("English words in the window").isEmpty();

        robot.clickOn("#app-menu");
        robot.clickOn("#menu-settings");
        waitUntil(
                "the dialog is open",
                () -> robot.lookup("#settings-save").tryQuery().isPresent());
        assertThat(robot.lookup("#settings-save").queryButton().getText()).isEqualTo("保存");
        assertThat(englishWords())
                .as("English words in the window and the settings dialog")
                .isEmpty();

        // the Sign in dialog, opened from the settings: its fields, and every error of an empty form
        robot.clickOn("#settings-sign-in");
        waitUntil(
                "the Sign in dialog",
                () -> robot.lookup("#signin-submit").tryQuery().isPresent());
        assertThat(robot.lookup("#signin-submit").queryButton().getText()).isEqualTo("登录");
        assertThat(englishWords()).as("English words in the Sign in dialog").isEmpty();
        robot.interact(() ->
                robot.lookup("#signin-device").queryAs(TextInputControl.class).setText(""));
        robot.clickOn("#signin-submit");
        waitUntil("its errors", () -> !text(robot, "#signin-password-error").isEmpty());
        assertThat(text(robot, "#signin-password-error")).isEqualTo("请输入密码。");
        assertThat(text(robot, "#signin-user-error")).isEqualTo("请输入用户名。");
        assertThat(text(robot, "#signin-device-error")).startsWith("请输入 1 到 100 个可打印字符");
        assertThat(englishWords())
                .as("English words in the Sign in dialog's errors")
                .isEmpty();
        robot.clickOn("#signin-cancel");
        waitUntil(
                "the Sign in dialog closed",
                () -> robot.lookup("#signin-submit").tryQuery().isEmpty());

        robot.interact(() -> robot.lookup("#settings-schedule-interval")
                .queryAs(TextInputControl.class)
                .setText("0s"));
        robot.clickOn("#settings-save");
        assertThat(text(robot, "#settings-schedule-interval-error"))
                .isEqualTo("定时同步间隔：不接受“0s”。请输入至少 1s 的时长，例如 30s、5m 或 1h。未保存任何内容。");
        robot.clickOn("#settings-cancel");

        // the Data tab: records, a local edit in the outbox, the summary and the form's message
        UiTestSupport.selectTab(robot, "tab-data");
        waitUntil(
                "records shown",
                () -> !robot.lookup("#data-records")
                        .queryAs(TableView.class)
                        .getItems()
                        .isEmpty());
        robot.interact(() -> {
            robot.lookup("#edit-id").queryAs(TextInputControl.class).setText("course-1");
            robot.lookup("#edit-payload").queryAs(TextInputControl.class).setText("{\"title\": \"线性代数\"}");
        });
        robot.clickOn("#edit-save");
        waitUntil("saved", () -> text(robot, "#data-message").equals("已保存在本地。下次同步会推送它。"));
        waitUntil(
                "the summary counts the edit",
                () -> text(robot, "#data-summary").endsWith(" · 1 项本地编辑等待推送"));
        waitUntil(
                "the edit in the outbox",
                () -> robot.lookup("#data-outbox .table-cell")
                        .match((javafx.scene.control.TableCell<?, ?> c) -> "等待推送".equals(c.getText()))
                        .tryQuery()
                        .isPresent());
        assertThat(robot.lookup("#resolve-conflict").queryButton().getText()).isEqualTo("冲突与副本…");
        assertThat(robot.lookup("#data-more").queryButton().getText()).isEqualTo("显示更多记录");
        assertThat(englishWords()).as("English words on the Data tab").isEmpty();

        // the History tab: the runs of Sync all, their columns, sources, results and stages
        UiTestSupport.selectTab(robot, "tab-history");
        waitUntil(
                "runs listed",
                () -> !robot.lookup("#history-table")
                        .queryAs(TableView.class)
                        .getItems()
                        .isEmpty());
        HistoryViewModel.Row run = (HistoryViewModel.Row) robot.lookup("#history-table")
                .queryAs(TableView.class)
                .getItems()
                .get(0);
        assertThat(run.sources()).isEqualTo("手动");
        assertThat(run.result()).isEqualTo("成功，于 18:00:00");
        assertThat(englishWords()).as("English words on the History tab").isEmpty();

        // the QA tools window: its sections, lease table, statistics and a fired burst of triggers
        robot.clickOn("#qa-open");
        waitUntil("QA window", () -> robot.lookup("#qa-fire").tryQuery().isPresent());
        waitUntil("statistics", () -> text(robot, "#qa-stats").startsWith("内置服务器："));
        robot.interact(() -> robot.lookup("#qa-times")
                .queryAs(javafx.scene.control.Spinner.class)
                .getValueFactory()
                .setValue(2));
        robot.clickOn("#qa-fire");
        waitUntil("fired", () -> text(robot, "#qa-fire-result").startsWith("已发出 18 个触发："));
        waitUntil(
                "leases listed",
                () -> !robot.lookup("#qa-leases")
                        .queryAs(TableView.class)
                        .getItems()
                        .isEmpty());
        assertThat(englishWords()).as("English words in the QA tools window").isEmpty();
    }

    /** Every ASCII word of more than 3 letters the user can see, outside what {@link #ALLOWED} exempts. */
    static List<String> englishWords() throws Exception {
        List<String> texts = new ArrayList<>();
        java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
        Platform.runLater(() -> {
            for (Window w : Window.getWindows()) {
                if (w.isShowing() && w.getScene() != null && w instanceof Stage st) {
                    texts.add(st.getTitle());
                    collect(w.getScene().getRoot(), texts);
                }
            }
            done.complete(null);
        });
        done.get();
        List<String> found = new ArrayList<>();
        for (String t : texts) {
            if (t == null) {
                continue;
            }
            String rest = ALLOWED.matcher(t).replaceAll(" ");
            Matcher m = WORD.matcher(rest);
            while (m.find()) {
                found.add(m.group() + "  (in: " + t + ")");
            }
        }
        return found;
    }

    static void collect(Node n, List<String> out) {
        if (!n.isVisible() || "account".equals(n.getId())) {
            return; // hidden parts (e.g. other tabs' content) and user data (the user ids)
        }
        if (n instanceof javafx.scene.control.TableCell<?, ?> cell
                && cell.getTableColumn() != null
                && cell.getTableColumn().getStyleClass().contains(DataView.USER_DATA)) {
            return; // user data shown as it is: record ids and content, owners, task keys
        }
        if (n instanceof Labeled l) {
            out.add(l.getText());
        }
        if (n instanceof TextInputControl t) {
            out.add(t.getPromptText());
        }
        if (n instanceof MenuButton mb) {
            mb.getItems().forEach(i -> items(i, out));
        }
        if (n instanceof TabPane tp) {
            tp.getTabs().stream().map(Tab::getText).forEach(out::add);
        }
        if (n instanceof ComboBox<?> c) {
            for (Object item : c.getItems()) {
                @SuppressWarnings("unchecked")
                ComboBox<Object> co = (ComboBox<Object>) c;
                out.add(
                        co.getConverter() == null
                                ? String.valueOf(item)
                                : co.getConverter().toString(item));
            }
        }
        if (n instanceof Parent p) {
            p.getChildrenUnmodifiable().forEach(ch -> collect(ch, out));
        }
    }

    static void items(MenuItem i, List<String> out) {
        if (!i.isVisible()) {
            return; // as hidden nodes: e.g. Add account while nobody is signed in
        }
        out.add(i.getText());
        if (i instanceof Menu m) {
            m.getItems().forEach(x -> items(x, out));
        }
    }
}
