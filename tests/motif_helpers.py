"""Small PWMs written by hand for the motif tests."""

import numpy as np


def word_pwm(word, sure=0.85):
    """A PWM with ``sure`` on each letter of ``word`` and the rest spread over the other three
    (N: uniform), shape (len(word), 4)."""
    pwm = np.full((len(word), 4), 0.25)
    for j, letter in enumerate(word):
        if letter != "N":
            pwm[j] = (1 - sure) / 3
            pwm[j, "ACGT".index(letter)] = sure
    return pwm
