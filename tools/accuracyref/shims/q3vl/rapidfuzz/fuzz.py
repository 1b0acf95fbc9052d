"""Stand-in for rapidfuzz.fuzz.ratio, written from its documented
definition: the normalized Indel similarity of two strings times 100,
1 - (len1 + len2 - 2 * LCS) / (len1 + len2), over code points; 100 for
two empty strings."""


def ratio(s1, s2):
    total = len(s1) + len(s2)
    if total == 0:
        return 100.0
    prev = [0] * (len(s2) + 1)
    for a in s1:
        cur = [0] * (len(s2) + 1)
        for j, b in enumerate(s2):
            cur[j + 1] = prev[j] + 1 if a == b else max(prev[j + 1], cur[j])
        prev = cur
    dist = total - 2 * prev[-1]
    return (1.0 - dist / total) * 100
