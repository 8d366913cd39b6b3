import unittest

from unfinished_tests import unfinished


class UnfinishedTests(unittest.TestCase):
    def test_a_test_still_running_is_named_and_ended_ones_are_not(self):
        log = [
            "◇ Test aQuickOne() started.",
            "◇ Test theHangingOne() started.",
            "✔ Test aQuickOne() passed after 0.1 seconds.",
            "◇ Test failsFast() started.",
            "✘ Test failsFast() failed after 0.2 seconds with 1 issue.",
        ]
        self.assertEqual(unfinished(log), ["theHangingOne()"])

    def test_a_parameterized_test_ends_when_the_test_ends_not_a_case(self):
        log = [
            "◇ Test eachCase(_:) started.",
            "◇ Test case passing 1 argument x → 1 to eachCase(_:) started.",
            "◇ Test case passing 1 argument x → 2 to eachCase(_:) started.",
        ]
        self.assertEqual(unfinished(log), ["eachCase(_:)"])
        self.assertEqual(unfinished(log + ["✔ Test eachCase(_:) with 2 test cases passed after 3 seconds."]), [])

    def test_xctest_cases(self):
        log = [
            "Test Case '-[AppTests.A one]' started.",
            "Test Case '-[AppTests.A one]' passed (0.01 seconds).",
            "Test Case '-[AppTests.A two]' started.",
        ]
        self.assertEqual(unfinished(log), ["-[AppTests.A two]"])


if __name__ == "__main__":
    unittest.main()
