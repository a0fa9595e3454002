package org.leasesync.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PasswordsTest {

    /** The part of a PHC string before the salt: algorithm, version and cost parameters. */
    private static String parameters(String phc) {
        return phc.substring(0, phc.lastIndexOf('$', phc.lastIndexOf('$') - 1));
    }

    @Test
    void theDummyHashCostsWhatARealOneCosts() throws Exception {
        String real = Passwords.hash("correct horse battery staple");
        assertThat(parameters(Passwords.DUMMY)).isEqualTo(parameters(real)).isEqualTo("$argon2id$v=19$m=19456,t=2,p=1");
    }

    @Test
    void aMissingHashIsRefusedAndARealOneMatches() throws Exception {
        String real = Passwords.hash("correct horse battery staple");
        assertThat(Passwords.matches("correct horse battery staple", real)).isTrue();
        assertThat(Passwords.matches("wrong", real)).isFalse();
        assertThat(Passwords.matches("no account has this password", null)).isFalse();
    }
}
