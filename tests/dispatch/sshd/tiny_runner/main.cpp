#include <cstdio>
int main()
{
    std::puts("tiny runner");
    return 0;
}
