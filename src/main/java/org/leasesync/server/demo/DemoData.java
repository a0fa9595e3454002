package org.leasesync.server.demo;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The demo records {@link DemoSeeder} writes: JSON payloads per scope, per user. */
public final class DemoData {

    static final Map<String, String> ID_PREFIX =
            Map.of("course_sync", "course", "message_sync", "msg", "backup", "settings");

    public static final Map<String, List<String>> ALICE = scopes(
            List.of(
                    "{\"title\":\"Linear Algebra\",\"progress\":0.42,\"lastLesson\":\"Eigenvalues\"}",
                    "{\"title\":\"Introduction to Statistics\",\"progress\":0.8,\"lastLesson\":\"Confidence Intervals\"}",
                    "{\"title\":\"Organic Chemistry I\",\"progress\":0.15,\"lastLesson\":\"Alkanes and Cycloalkanes\"}",
                    "{\"title\":\"Spanish for Beginners\",\"progress\":0.66,\"lastLesson\":\"Past Tense: Preterite\"}",
                    "{\"title\":\"Data Structures\",\"progress\":1.0,\"lastLesson\":\"Final Review\"}"),
            List.of(
                    "{\"from\":\"Prof. Hartmann\",\"subject\":\"Problem set 6 posted\","
                            + "\"body\":\"Problem set 6 on diagonalisation is online, due Friday.\",\"read\":false}",
                    "{\"from\":\"Study Group\",\"subject\":\"Thursday session moved\","
                            + "\"body\":\"We meet in room B12 at 17:00 instead of the library.\",\"read\":true}",
                    "{\"from\":\"Registrar\",\"subject\":\"Exam timetable\","
                            + "\"body\":\"The winter exam timetable has been published.\",\"read\":false}",
                    "{\"from\":\"bob\",\"subject\":\"Stats notes?\","
                            + "\"body\":\"Could you share your notes on hypothesis testing?\",\"read\":false}"),
            List.of("{\"theme\":\"light\",\"notifications\":true,\"language\":\"en\","
                    + "\"syncOnStartup\":true,\"dailyGoalMinutes\":30}"));

    public static final Map<String, List<String>> BOB = scopes(
            List.of(
                    "{\"title\":\"Calculus II\",\"progress\":0.27,\"lastLesson\":\"Integration by Parts\"}",
                    "{\"title\":\"World History: 1900-1950\",\"progress\":0.55,\"lastLesson\":\"The Interwar Years\"}",
                    "{\"title\":\"Python Programming\",\"progress\":0.9,\"lastLesson\":\"Generators and Iterators\"}",
                    "{\"title\":\"Microeconomics\",\"progress\":0.05,\"lastLesson\":\"Supply and Demand\"}"),
            List.of(
                    "{\"from\":\"Dr. Okafor\",\"subject\":\"Office hours cancelled\","
                            + "\"body\":\"No office hours this Wednesday; see you in the lecture.\",\"read\":false}",
                    "{\"from\":\"alice\",\"subject\":\"Re: Stats notes?\","
                            + "\"body\":\"Sure, I will upload them to the shared folder tonight.\",\"read\":true}",
                    "{\"from\":\"Course Bot\",\"subject\":\"Streak: 5 days\","
                            + "\"body\":\"You studied five days in a row. Keep it up!\",\"read\":false}",
                    "{\"from\":\"Library\",\"subject\":\"Book due soon\","
                            + "\"body\":\"'Calculus: Early Transcendentals' is due back on Monday.\",\"read\":false}",
                    "{\"from\":\"Python Programming\",\"subject\":\"Quiz 4 graded\","
                            + "\"body\":\"Your score: 18/20.\",\"read\":true}"),
            List.of("{\"theme\":\"dark\",\"notifications\":false,\"language\":\"de\","
                    + "\"syncOnStartup\":false,\"dailyGoalMinutes\":45}"));

    private DemoData() {}

    private static Map<String, List<String>> scopes(List<String> courses, List<String> messages, List<String> backup) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        m.put("course_sync", courses);
        m.put("message_sync", messages);
        m.put("backup", backup);
        return m;
    }
}
