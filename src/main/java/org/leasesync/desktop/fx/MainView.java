package org.leasesync.desktop.fx;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import org.leasesync.desktop.Messages;
import org.leasesync.lease.Scope;

/** The main window's content. Thin: every handler is one call on a view model. */
final class MainView {

    private final BorderPane root = new BorderPane();

    /**
     * @param signIn opens the Sign in dialog (Sign in, Add account)
     * @param signInAgain opens it for the account shown (a signed-out card's Sign in)
     */
    MainView(
            MainViewModel vm,
            DataViewModel data,
            HistoryViewModel history,
            Runnable openQa,
            javafx.beans.value.ObservableValue<String> footer,
            AccountsViewModel accounts,
            Runnable signIn,
            Runnable signInAgain,
            BackgroundViewModel desktop,
            Messages messages,
            Runnable openSettings,
            Runnable quit,
            FolderActions folders) {
        root.getStyleClass().add("main");
        Label title = new Label("leasesync");
        title.getStyleClass().add("app-title");
        ComboBox<String> account = new ComboBox<>(vm.accounts());
        account.setId("account");
        account.setValue(vm.currentUser());
        vm.currentUserProperty().addListener((o, a, b) -> account.setValue(b));
        account.setConverter(new javafx.util.StringConverter<>() {
            @Override
            public String toString(String user) {
                return accounts.label(user);
            }

            @Override
            public String fromString(String text) {
                return null;
            }
        });
        account.setOnAction(e -> accounts.switchTo(account.getValue()));
        Button syncAll = new Button(messages.get("main.syncAll"));
        syncAll.setId("sync-all");
        syncAll.getStyleClass().add("accent");
        syncAll.setOnAction(e -> vm.syncAll());
        Button qa = new Button(messages.get("main.qaTools"));
        qa.setId("qa-open");
        qa.setOnAction(e -> openQa.run());
        Node pause = BackgroundControls.pauseControl(desktop, messages);
        MenuButton menu = BackgroundControls.appMenu(desktop, messages, openSettings, folders, quit);
        BackgroundControls.accountItems(menu, accounts, messages, signIn);
        // The controls wrap to a second line in a narrow window rather than cutting the title short.
        title.setMinWidth(Region.USE_PREF_SIZE);
        javafx.scene.layout.FlowPane controls = new javafx.scene.layout.FlowPane(
                10, 6, pause, new Label(messages.get("main.account")), account, syncAll, qa, menu);
        controls.setAlignment(Pos.CENTER_RIGHT);
        controls.getChildren().forEach(n -> {
            if (n instanceof Region r) {
                r.setMinWidth(Region.USE_PREF_SIZE);
            }
        });
        HBox.setHgrow(controls, Priority.ALWAYS);
        HBox top = new HBox(10, title, controls);
        top.setAlignment(Pos.CENTER_LEFT);
        top.setPadding(new Insets(12, 16, 12, 16));
        top.getStyleClass().add("top-bar");
        Label banner = new Label();
        banner.setId("banner");
        banner.textProperty().bind(vm.bannerProperty());
        banner.visibleProperty().bind(banner.textProperty().isNotEmpty());
        banner.managedProperty().bind(banner.visibleProperty());
        banner.getStyleClass().add("notice"); // like the other notices: full width, tinted
        banner.setWrapText(true);
        banner.setMaxWidth(Double.MAX_VALUE);
        banner.setPadding(new Insets(6, 16, 6, 16));
        Label notice = new Label();
        notice.setId("notice");
        notice.getStyleClass().add("notice");
        notice.setWrapText(true);
        notice.textProperty().bind(desktop.noticeProperty());
        notice.visibleProperty().bind(notice.textProperty().isNotEmpty());
        notice.setPadding(new Insets(6, 16, 6, 16));
        notice.setMaxWidth(Double.MAX_VALUE);
        Button dismiss = new Button("×");
        dismiss.setId("notice-dismiss");
        dismiss.getStyleClass().addAll("flat", "notice-dismiss");
        dismiss.setAccessibleText(messages.get("notice.dismiss"));
        dismiss.setTooltip(new javafx.scene.control.Tooltip(messages.get("notice.dismiss")));
        dismiss.setOnAction(e -> desktop.dismissNotice());
        HBox.setHgrow(notice, Priority.ALWAYS);
        HBox noticeBar = new HBox(notice, dismiss);
        noticeBar.setAlignment(Pos.CENTER_LEFT);
        noticeBar.getStyleClass().add("notice");
        noticeBar.visibleProperty().bind(notice.textProperty().isNotEmpty());
        noticeBar.managedProperty().bind(noticeBar.visibleProperty());
        root.setTop(new VBox(top, banner, noticeBar));

        VBox cards = new VBox(12);
        cards.setPadding(new Insets(16));
        java.util.Map<Scope, ScopeCard> byScope = new java.util.EnumMap<>(Scope.class);
        for (Scope s : Scope.values()) {
            ScopeCard card = new ScopeCard(vm.card(s), vm, signInAgain);
            byScope.put(s, card);
            cards.getChildren().add(card);
        }
        Label hint = new Label();
        hint.textProperty().bind(footer);
        hint.getStyleClass().add("hint");
        hint.setWrapText(true);
        cards.getChildren().add(hint);
        ScrollPane scroll = RenderMemory.uncachedScrollPane(cards);
        scroll.setFitToWidth(true);

        Tab syncTab = new Tab(messages.get("tab.sync"), scroll);
        syncTab.setId("tab-sync");
        Tab dataTab = lazyTab(messages.get("tab.data"), "tab-data", () -> DataView.scrolling(data), data::load);
        Tab historyTab =
                lazyTab(messages.get("tab.history"), "tab-history", () -> new HistoryView(history), history::load);
        TabPane tabs = new TabPane(syncTab, dataTab, historyTab);
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        root.setCenter(tabs);
        vm.highlightedProperty().addListener((o, a, scope) -> {
            if (scope != null) {
                tabs.getSelectionModel().select(syncTab);
                byScope.values().forEach(c -> c.getStyleClass().remove("highlight"));
                ScopeCard card = byScope.get(scope);
                card.getStyleClass().add("highlight");
                javafx.application.Platform.runLater(
                        () -> { // after the tab's layout
                            double contentHeight = cards.getHeight()
                                    - scroll.getViewportBounds().getHeight();
                            scroll.setVvalue(
                                    contentHeight <= 0
                                            ? 0
                                            : Math.min(
                                                    1, card.getBoundsInParent().getMinY() / contentHeight));
                            card.focusPrimary();
                        });
            }
        });
    }

    Parent root() {
        return root;
    }

    /**
     * A tab whose content is built when it is first selected, and which loads on every selection.
     * The Data and History tabs hold tables (TableView, TextArea, their skins and CSS): built at
     * start-up they cost ~1,500 JavaFX classes and their heap before the user ever opens them
     * (docs/benchmarks.md, start-up against a bare window).
     */
    private static Tab lazyTab(String text, String id, java.util.function.Supplier<Node> content, Runnable onSelected) {
        Tab tab = new Tab(text);
        tab.setId(id);
        tab.setOnSelectionChanged(e -> {
            if (tab.isSelected()) {
                if (tab.getContent() == null) {
                    tab.setContent(content.get());
                }
                onSelected.run();
            }
        });
        return tab;
    }
}
