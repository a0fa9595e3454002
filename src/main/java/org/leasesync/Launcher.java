package org.leasesync; public class Launcher { public static void main(String[] a){ System.out.println("hi"); } }
